package org.jacap.kv.eviction;

/**
 * Scores the cache entries of one layer: {@code [kvHead][entry]}, higher = keep. Protected
 * entries (sinks, recent windows) score above every other entry, in their priority order:
 * the protected entry of rank q scores {@code max + (N_prot − q)}, where max is the largest
 * unprotected score of the layer.
 */
public sealed interface KvScorer
        permits KeepAllScorer,
                RandomScorer,
                StreamingScorer,
                KeyNormScorer,
                KeyDiffScorer,
                SnapKvScorer,
                TovaScorer,
                ObservedAttentionScorer,
                ExpectedAttentionScorer,
                CapKvScorer,
                JacapScorer,
                FusedJacapScorer,
                FutureAttentionOracle,
                ProtectedScorer,
                GreedyLogDetScorer {

    /** Registry name, e.g. {@code "capkv"}. */
    String name();

    /**
     * The spec string that {@link EvictionPolicies#scorer(String)} parses back into this scorer: the
     * name alone for a scorer without parameters; one with parameters lists them after a colon.
     */
    default String spec() {
        return name();
    }

    /**
     * The allocator this scorer's scores are made for when none is asked for: the same number of
     * entries per KV head, unless the scores are comparable across a layer's heads on purpose
     * ({@code jacap:heads=capacity}).
     */
    default BudgetAllocator allocator() {
        return new UniformAllocator();
    }

    /**
     * The form this scorer runs in under a per-head budget ({@link EvictionSettings}): itself,
     * unless a form tuned for prompts compressed once by a ratio differs from the one for
     * budgeted decoding ({@code jacap}'s head shares and reserve).
     */
    default KvScorer underBudget() {
        return this;
    }

    /**
     * How many leading entries this scorer protects as sinks: their scores are priorities, not
     * measurements, so a scorer that pools another's scores ({@code jacap:capacity_kernel}) leaves them out.
     */
    default int protectedSinks() {
        return 0;
    }

    /** What the forward pass must gather for this scorer. */
    StatisticsSpec statistics();

    double[][] score(LayerSnapshot layer, ScoreTrace trace);

    default double[][] score(LayerSnapshot layer) {
        return score(layer, ScoreTrace.NONE);
    }
}

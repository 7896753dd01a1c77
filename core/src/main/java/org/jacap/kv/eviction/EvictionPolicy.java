package org.jacap.kv.eviction;

/**
 * A scorer and a budget allocator: decides which entries of each (layer, KV head) stay.
 *
 * <p>Engine use, per eviction event: create one {@link QueryStatistics} per layer from
 * {@link #statistics()} before prefill and feed it during the forward pass; at the event build a
 * {@link LayerSnapshot} per layer, call {@link #select}, compact the cache rows (and the
 * statistics, {@link QueryStatistics#retainEntries}) to the kept indices.
 */
public record EvictionPolicy(KvScorer scorer, BudgetAllocator allocator) {

    /** No eviction: every entry is kept whatever the budget. */
    public static EvictionPolicy none() {
        return new EvictionPolicy(new KeepAllScorer(), new UniformAllocator());
    }

    public boolean evicts() {
        return !(scorer instanceof KeepAllScorer);
    }

    /**
     * This policy under a per-head budget: the scorer's budget form ({@link KvScorer#underBudget}),
     * with that form's allocator where this policy took its scorer's own, and the allocator asked
     * for otherwise.
     */
    public EvictionPolicy underBudget() {
        KvScorer b = scorer.underBudget();
        if (b.equals(scorer)) {
            return this;
        }
        return new EvictionPolicy(b, allocator.equals(scorer.allocator()) ? b.allocator() : allocator);
    }

    public StatisticsSpec statistics() {
        return scorer.statistics();
    }

    public KeptEntries select(LayerSnapshot layer, Budget budget) {
        return select(layer, budget, ScoreTrace.NONE);
    }

    public KeptEntries select(LayerSnapshot layer, Budget budget, ScoreTrace trace) {
        if (!evicts()) {
            int[][] all = new int[layer.heads().length][];
            for (int g = 0; g < all.length; g++) {
                all[g] = new int[layer.head(g).length()];
                for (int i = 0; i < all[g].length; i++) {
                    all[g][i] = i;
                }
            }
            return new KeptEntries(all);
        }
        double[][] scores = scorer.score(layer, trace);
        return new KeptEntries(allocator.select(scores, budget, layer.layer(), layer.layerCount()));
    }

    /** E.g. {@code capkv:n_sink=4,tau=5.0,epsilon=1.0E-6,sink_bonus=1.0 / uniform}. */
    public String describe() {
        return scorer.spec() + " / " + allocator.spec();
    }
}

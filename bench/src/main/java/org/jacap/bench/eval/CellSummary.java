package org.jacap.bench.eval;

/**
 * One (policy, ratio) cell of the evaluation, over all documents, with bootstrap 95% intervals.
 * The reference row is policy "full" at ratio 0. {@code probe} is null when the probe did not run,
 * {@code passkey} (the exact-match rate of the passkey task) when the passkey task did not.
 *
 * @param keptPerHead   entries each (layer, KV head) kept
 * @param scoringMillis mean wall time per document of selecting and compacting the cache
 */
public record CellSummary(
        String policy,
        double ratio,
        int keptPerHead,
        Estimate meanKl,
        Estimate p90Kl,
        Estimate top1Agreement,
        Estimate deltaNll,
        ProbeSummary probe,
        Estimate passkey,
        double scoringMillis) {

    /** Probe metrics over documents. */
    public record ProbeSummary(Estimate exactMatch, Estimate tokenAccuracy, Estimate meanLogProb) {}
}

package org.jacap.bench.eval;

/**
 * Retrieval probe for one document (averaged over the probe depths): whether the greedy
 * continuation reproduced the rest of the span exactly, the fraction of its tokens predicted as
 * top-1, and the mean log-probability of those tokens. Under teacher forcing, "every target is
 * the argmax" is exactly "greedy decoding reproduces the span".
 */
public record ProbeScore(double exactMatch, double tokenAccuracy, double meanLogProb) {

    /** Scores one depth from the per-target top-1 hits and log-probabilities. */
    public static ProbeScore of(boolean[] top1Hits, double[] logProbs) {
        if (top1Hits.length == 0 || top1Hits.length != logProbs.length) {
            throw new IllegalArgumentException("probe needs matching, non-empty hit and log-prob arrays");
        }
        int hits = 0;
        double sum = 0;
        for (int i = 0; i < top1Hits.length; i++) {
            hits += top1Hits[i] ? 1 : 0;
            sum += logProbs[i];
        }
        return new ProbeScore(hits == top1Hits.length ? 1 : 0, (double) hits / top1Hits.length, sum / logProbs.length);
    }

    /** The mean of several depths' scores. */
    public static ProbeScore mean(java.util.List<ProbeScore> scores) {
        double em = 0;
        double acc = 0;
        double lp = 0;
        for (ProbeScore s : scores) {
            em += s.exactMatch;
            acc += s.tokenAccuracy;
            lp += s.meanLogProb;
        }
        int n = scores.size();
        return new ProbeScore(em / n, acc / n, lp / n);
    }
}

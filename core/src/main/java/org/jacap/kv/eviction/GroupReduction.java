package org.jacap.kv.eviction;

/** How the per-query-head scores of a GQA group become one KV-head score. */
public enum GroupReduction {
    /** (1/G) Σ over the group, summed in head order (CapPress, kvpress). */
    MEAN,
    /** The largest score in the group: keeps what any head of the group needs (ablation). */
    MAX;

    /** Folds query head {@code index}'s scores into {@code into}, entries from..to. */
    void accumulate(double[] into, double[] headScores, int from, int to, int index) {
        for (int i = from; i < to; i++) {
            double x = headScores[i - from];
            into[i] = this == MEAN || index == 0 ? into[i] + x : Math.max(into[i], x);
        }
    }

    /** Completes the reduction over {@code groupSize} heads. */
    void finish(double[] into, int from, int to, int groupSize) {
        if (this == MEAN) {
            for (int i = from; i < to; i++) {
                into[i] /= groupSize;
            }
        }
    }
}

package org.jacap.kv.eviction;

/**
 * The frame the capacity scorers (CapKV, Jacap) share; they differ only in their weights. Per KV
 * head, each query head of its group weighs the scored entries; the ridge leverage of the values
 * under those weights, times the weights, is reduced over the group (trace {@code w}, {@code lev});
 * the sinks are protected last.
 */
final class CapacityScores {
    private CapacityScores() {}

    /** A scorer's weights for one KV head, made once per head (its scratch is sized by the entries). */
    @FunctionalInterface
    interface GroupWeights {
        /** The weigher of the scored entries {@code from .. from+m-1} of {@code cols}. */
        HeadWeights forGroup(HeadColumns cols, int from, int m);
    }

    /** Weighs a KV head's scored entries for each query head of its group. */
    @FunctionalInterface
    interface HeadWeights {
        /** Fills {@code w[0..m)} for query head {@code h}, recording the scorer's own trace. */
        void weigh(int h, double[] w);
    }

    static double[][] score(
            LayerSnapshot layer,
            ScoreTrace trace,
            CapacityAblation ablation,
            int nSink,
            double epsilon,
            double sinkBonus,
            GroupWeights weights) {
        AttentionShape shape = layer.shape();
        int group = shape.groupSize();
        double[][] s = new double[shape.kvHeads()][];
        for (int g = 0; g < shape.kvHeads(); g++) {
            HeadColumns cols = HeadColumns.of(layer.head(g));
            int n = cols.n;
            int from = ablation.firstScored(nSink, n);
            int m = n - from;
            s[g] = new double[n];
            if (m == 0) {
                continue;
            }
            HeadWeights head = weights.forGroup(cols, from, m);
            double[] w = new double[m];
            double[] lev = new double[m];
            int h0 = shape.firstQueryHead(g);
            for (int h = h0; h < h0 + group; h++) {
                head.weigh(h, w);
                ablation.leverage(cols, from, m, w, epsilon, lev);
                if (trace.enabled()) {
                    trace.record("w", h, w.clone());
                    trace.record("lev", h, lev.clone());
                }
                ablation.accumulateWeighted(s[g], lev, w, from, n, h - h0);
            }
            ablation.group().finish(s[g], from, n, group);
        }
        ProtectedScores.protectSinks(s, nSink, sinkBonus);
        return s;
    }
}

package org.jacap.kv.eviction;

/**
 * Observed attention (H2O-like, kvpress ObservedAttentionPress): the mean attention an entry
 * received from the queries that could see it, {@code Σ_t P[t][i] / (n − i)} in prefill, averaged
 * over the GQA group. No protected entries.
 */
public record ObservedAttentionScorer() implements KvScorer {
    @Override
    public String name() {
        return "h2o";
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.of(0, 0, QueryStatistic.ATTENTION_RECEIVED);
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        AttentionShape shape = layer.shape();
        QueryStatistics stats = layer.queries();
        double[][] s = new double[shape.kvHeads()][];
        for (int g = 0; g < shape.kvHeads(); g++) {
            int n = layer.head(g).length();
            s[g] = new double[n];
            double[] perHead = new double[n];
            for (int h = shape.firstQueryHead(g); h < shape.firstQueryHead(g) + shape.groupSize(); h++) {
                for (int i = 0; i < n; i++) {
                    int seen = stats.attentionSeenBy(h, i);
                    perHead[i] = seen == 0 ? 0.0 : stats.attentionReceived(h, i) / seen;
                    s[g][i] += perHead[i];
                }
                if (trace.enabled()) {
                    trace.record("per_head", h, perHead.clone());
                }
            }
            for (int i = 0; i < n; i++) {
                s[g][i] /= shape.groupSize();
            }
        }
        return s;
    }
}

package org.jacap.kv.eviction;

import org.jacap.JacapException;

/**
 * Observed attention (H2O-like, kvpress ObservedAttentionPress): the mean attention an entry
 * received from the queries that could see it, {@code Σ_t P[t][i] / (n − i)} in prefill, reduced
 * over the GQA group (mean, as kvpress). No protected entries.
 *
 * <p>{@code values} other than {@link ValueWeight#NONE} weigh each query head's attention by the
 * entry's value before the group reduction (an extension, not H2O: {@code h2o:values=deviation}).
 */
public record ObservedAttentionScorer(ValueWeight values, GroupReduction group) implements KvScorer {
    public ObservedAttentionScorer {
        if (values == null || group == null) {
            throw new JacapException("h2o: values and group must be given");
        }
    }

    /** H2O as kvpress runs it: attention alone, the group's mean. */
    public ObservedAttentionScorer() {
        this(ValueWeight.NONE, GroupReduction.MEAN);
    }

    @Override
    public String name() {
        return "h2o";
    }

    @Override
    public String spec() {
        if (values == ValueWeight.NONE && group == GroupReduction.MEAN) {
            return name();
        }
        return name() + ":" + ValueWeighting.spec(values, group);
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
            KvHeadRows rows = layer.head(g);
            int n = rows.length();
            s[g] = new double[n];
            double[] norms = values == ValueWeight.NORM ? ValueWeighting.valueNorms(rows) : null;
            int first = shape.firstQueryHead(g);
            for (int h = first; h < first + shape.groupSize(); h++) {
                double[] perHead = new double[n];
                for (int i = 0; i < n; i++) {
                    perHead[i] = stats.meanAttentionReceived(h, i);
                }
                ValueWeighting.weigh(values, perHead, rows, norms, ValueWeighting.energies(layer, h, values));
                if (trace.enabled()) {
                    trace.record("per_head", h, perHead.clone());
                }
                group.accumulate(s[g], perHead, 0, n, h - first);
            }
            group.finish(s[g], 0, n, shape.groupSize());
        }
        return s;
    }
}

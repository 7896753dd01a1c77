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
        return name() + ":values=" + values.spelling() + ",group="
                + group.name().toLowerCase(java.util.Locale.ROOT);
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
            double[] norms = values == ValueWeight.NORM ? valueNorms(rows) : null;
            int first = shape.firstQueryHead(g);
            for (int h = first; h < first + shape.groupSize(); h++) {
                double[] perHead = new double[n];
                for (int i = 0; i < n; i++) {
                    int seen = stats.attentionSeenBy(h, i);
                    perHead[i] = seen == 0 ? 0.0 : stats.attentionReceived(h, i) / seen;
                }
                weigh(perHead, rows, norms, energies(layer, h));
                if (trace.enabled()) {
                    trace.record("per_head", h, perHead.clone());
                }
                group.accumulate(s[g], perHead, 0, n, h - first);
            }
            group.finish(s[g], 0, n, shape.groupSize());
        }
        return s;
    }

    /** Query head h's slice of the W_O column energies, or null (plain deviation). */
    private double[] energies(LayerSnapshot layer, int h) {
        double[] e = layer.outputEnergy();
        if (values != ValueWeight.OUTPUT || e == null) {
            return null;
        }
        int d = layer.shape().headDim();
        return java.util.Arrays.copyOfRange(e, h * d, (h + 1) * d);
    }

    /** Multiplies one query head's attention by the value weight, in place. */
    private void weigh(double[] attention, KvHeadRows rows, double[] norms, double[] energy) {
        switch (values) {
            case NONE -> {}
            case NORM -> {
                for (int i = 0; i < attention.length; i++) {
                    attention[i] *= norms[i];
                }
            }
            case DEVIATION, OUTPUT -> {
                int n = attention.length;
                int d = rows.headDim();
                double[] v = rows.values();
                double[] mean = new double[d];
                double total = 0;
                for (int i = 0; i < n; i++) {
                    total += attention[i];
                    for (int c = 0; c < d; c++) {
                        mean[c] += attention[i] * v[i * d + c];
                    }
                }
                if (total > 0) {
                    for (int c = 0; c < d; c++) {
                        mean[c] /= total;
                    }
                }
                for (int i = 0; i < n; i++) {
                    double sq = 0;
                    for (int c = 0; c < d; c++) {
                        double x = v[i * d + c] - mean[c];
                        sq += energy == null ? x * x : energy[c] * x * x;
                    }
                    attention[i] *= Math.sqrt(sq);
                }
            }
        }
    }

    /** ‖v_i‖₁ of every entry. */
    private static double[] valueNorms(KvHeadRows rows) {
        int n = rows.length();
        int d = rows.headDim();
        double[] v = rows.values();
        double[] norms = new double[n];
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int c = 0; c < d; c++) {
                sum += Math.abs(v[i * d + c]);
            }
            norms[i] = sum;
        }
        return norms;
    }
}

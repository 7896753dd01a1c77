package org.jacap.kv.eviction;

import org.jacap.JacapException;

/**
 * SnapKV: the attention the last {@code windowSize} queries pay to each earlier entry (causal
 * softmax rows, averaged over the window), average-pooled with a zero-padded kernel that always
 * divides by {@code kernelSize}, then averaged over the GQA group. The window's own entries are
 * protected, newest first.
 *
 * <p>{@code values} other than {@link ValueWeight#NONE} weigh each query head's pooled attention by
 * the entry's value before the group reduction, as {@code h2o:values=...} does (an extension, not
 * SnapKV: {@code snapkv:values=output,group=max}; ō is the pooled-attention mean of the evictable
 * entries' values).
 */
public record SnapKvScorer(int windowSize, int kernelSize, ValueWeight values, GroupReduction group)
        implements KvScorer {
    public static final int DEFAULT_WINDOW = 64;
    public static final int DEFAULT_KERNEL = 5;

    public SnapKvScorer {
        if (windowSize < 1 || kernelSize < 1 || kernelSize % 2 == 0) {
            throw new JacapException(
                    "snapkv needs window >= 1 and an odd kernel, got window=" + windowSize + " kernel=" + kernelSize);
        }
        if (values == null || group == null) {
            throw new JacapException("snapkv: values and group must be given");
        }
    }

    /** SnapKV as kvpress runs it: attention alone, the group's mean. */
    public SnapKvScorer(int windowSize, int kernelSize) {
        this(windowSize, kernelSize, ValueWeight.NONE, GroupReduction.MEAN);
    }

    @Override
    public String name() {
        return "snapkv";
    }

    @Override
    public String spec() {
        return name() + ":window_size=" + windowSize + ",kernel_size=" + kernelSize
                + (values == ValueWeight.NONE && group == GroupReduction.MEAN
                        ? ""
                        : "," + ValueWeighting.spec(values, group));
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.of(0, windowSize, QueryStatistic.RECENT_QUERIES);
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        AttentionShape shape = layer.shape();
        QueryStatistics stats = layer.queries();
        int d = shape.headDim();
        int groupSize = shape.groupSize();
        double[][] s = new double[shape.kvHeads()][];
        int[] windowStart = new int[shape.kvHeads()];
        double[] q = new double[d];
        for (int g = 0; g < shape.kvHeads(); g++) {
            KvHeadRows rows = layer.head(g);
            HeadColumns cols = HeadColumns.keysOf(rows);
            int n = cols.n;
            s[g] = new double[n];
            double[] row = new double[n];
            double[] norms = values == ValueWeight.NORM ? ValueWeighting.valueNorms(rows) : null;
            int first = shape.firstQueryHead(g);
            for (int h = first; h < first + groupSize; h++) {
                int held = stats.recentCount(h);
                if (held == 0) {
                    throw new JacapException("snapkv: no recent queries observed for head " + h);
                }
                int w = Math.min(held, windowSize);
                // the window's entries are those at or after the oldest window query's position
                int start = rows.firstIndexAtOrAfter(stats.recentPosition(h, held - w));
                windowStart[g] = start;
                double[] mean = new double[start];
                for (int t = held - w; t < held; t++) {
                    stats.recentQueryInto(h, t, q);
                    int visible = rows.firstIndexAtOrAfter(stats.recentPosition(h, t) + 1);
                    SoftmaxRows.attentionRow(cols, q, visible, row);
                    for (int i = 0; i < Math.min(start, visible); i++) {
                        mean[i] += row[i];
                    }
                }
                for (int i = 0; i < start; i++) {
                    mean[i] /= w;
                }
                double[] pooled = averagePool(mean);
                if (trace.enabled()) {
                    trace.record("window_attention_mean", h, mean.clone());
                    trace.record("pooled", h, pooled.clone());
                }
                ValueWeighting.weigh(values, pooled, rows, norms, ValueWeighting.energies(layer, h, values));
                group.accumulate(s[g], pooled, 0, start, h - first);
            }
            group.finish(s[g], 0, windowStart[g], groupSize);
        }
        ProtectedScores.protectRecent(s, windowStart);
        return s;
    }

    /** Stride 1, zero padding kernel/2, divided by the kernel size at the borders too. */
    private double[] averagePool(double[] a) {
        int half = kernelSize / 2;
        double[] out = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            double sum = 0;
            for (int j = Math.max(0, i - half); j <= Math.min(a.length - 1, i + half); j++) {
                sum += a[j];
            }
            out[i] = sum / kernelSize;
        }
        return out;
    }
}

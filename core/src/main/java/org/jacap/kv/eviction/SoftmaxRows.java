package org.jacap.kv.eviction;

/** Attention rows over cache entries: logits {@code q·k/√d} and a max-shifted softmax. */
final class SoftmaxRows {
    private SoftmaxRows() {}

    /** In place: {@code x[i] = exp(x[i] − max) / Σ exp(x[j] − max)} for {@code i < len}. */
    static void softmax(double[] x, int len) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < len; i++) {
            max = Math.max(max, x[i]);
        }
        double sum = 0;
        for (int i = 0; i < len; i++) {
            x[i] = Math.exp(x[i] - max);
            sum += x[i];
        }
        for (int i = 0; i < len; i++) {
            x[i] /= sum;
        }
    }

    /** Attention of query {@code q} (post-RoPE) over the first {@code visible} entries of a head. */
    static void attentionRow(HeadColumns cols, double[] q, int visible, double[] out) {
        cols.keyDots(q, 0, visible, out, 0);
        double scale = Math.sqrt(cols.d);
        for (int i = 0; i < visible; i++) {
            out[i] /= scale;
        }
        softmax(out, visible);
    }
}

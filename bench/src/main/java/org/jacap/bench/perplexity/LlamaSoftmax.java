package org.jacap.bench.perplexity;

/** The one piece of llama-perplexity's log-softmax every statistic shares: its sum of exponentials. */
final class LlamaSoftmax {
    private LlamaSoftmax() {}

    /** Σ exp(x[i] − max) over {@code x[off, off+n)}: float exponentials summed in double, as llama.cpp. */
    static double sumExp(float[] x, int off, int n, float max) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += (float) Math.exp(x[off + i] - max);
        }
        return sum;
    }
}

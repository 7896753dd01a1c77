package org.jacap.bench.perplexity;

/**
 * One position's log-probabilities as llama-perplexity stores them: {@code log p_i ≈ scale·q_i +
 * minLogProb} with q_i an unsigned 16-bit value (held in a short), covering the 16 nats below the
 * top logit; anything lower is stored as 0.
 */
public record QuantizedLogProbs(float scale, float minLogProb, short[] values) {

    /** The stored log-probability of entry {@code i}. */
    public float logProb(int i) {
        return scale * (values[i] & 0xFFFF) + minLogProb;
    }

    /**
     * Quantizes {@code logits[off, off+n)} as llama.cpp does: log-softmax with a float max, a double
     * sum of float exponentials, the range clipped to 16 nats, and round-to-nearest-even codes.
     */
    public static QuantizedLogProbs of(float[] logits, int off, int n, short[] out) {
        float max = logits[off];
        float min = logits[off];
        for (int i = 1; i < n; i++) {
            max = Math.max(max, logits[off + i]);
            min = Math.min(min, logits[off + i]);
        }
        min = Math.max(min, max - 16);
        float logSumExp = (float) Math.log(LlamaSoftmax.sumExp(logits, off, n, max));
        float minLogProb = min - max - logSumExp;
        float scale = (max - min) / 65535f;
        if (scale != 0) {
            float inv = 1 / scale;
            for (int i = 0; i < n; i++) {
                float x = logits[off + i];
                out[i] = x > min ? (short) Math.rint(inv * (x - min)) : 0;
            }
        } else {
            java.util.Arrays.fill(out, 0, n, (short) 0);
        }
        return new QuantizedLogProbs(scale, minLogProb, out);
    }
}

package org.jacap.sampling;

/**
 * Nucleus sampling: keeps the most likely candidates until their probability (softmax over the
 * current candidates) reaches p, including the one that crosses it; p ≥ 1 keeps everything.
 */
public record TopP(float p) implements SamplingStage {
    private static final int FIRST_PREFIX = 64;

    @Override
    public void apply(Candidates c, TokenHistory recent) {
        int size = c.size();
        if (p >= 1.0f || size <= 1) {
            return;
        }
        float max = c.maxLogit();
        double sum = 0;
        for (int i = 0; i < size; i++) {
            sum += Math.exp(c.logit(i) - max);
        }
        // sort only as much of the vocabulary as the nucleus needs, growing the sorted prefix
        double cumulative = 0;
        int i = 0;
        for (int k = Math.min(size, FIRST_PREFIX); ; k = Math.min(size, k * 8)) {
            c.sortTop(k);
            for (; i < k; i++) {
                cumulative += Math.exp(c.logit(i) - max) / sum;
                if (cumulative >= p) {
                    c.truncate(i + 1);
                    return;
                }
            }
            if (k == size) {
                return;
            }
        }
    }
}

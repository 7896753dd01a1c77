package org.jacap.bench.eval;

/**
 * Compares the next-token distribution of the full-cache run (p) with the compressed run's (q)
 * at one position. The full-cache side is prepared once ({@link #reference}) and compared with
 * every compressed run: an evaluation compares one reference with dozens of policies and ratios,
 * and over a 262k-entry vocabulary the exponentials of p dominated when they were redone per run.
 * Stateless; safe to share between threads.
 */
public final class TokenComparison {

    /**
     * One position: KL(p‖q) in nats, whether both argmaxes agree, −log p and −log q of the true token,
     * and the compressed run's argmax (ties to the lowest id).
     */
    public record Score(double kl, boolean sameTop1, double nllFull, double nllCompressed, int compressedTop1) {}

    /**
     * The full-cache distribution at one position: its logits, log-normaliser, probabilities (in
     * double) and argmax.
     */
    public record Reference(float[] logits, int offset, double logZ, double[] probabilities, double mass, int top1) {}

    private final int vocab;

    public TokenComparison(int vocab) {
        this.vocab = vocab;
    }

    /** Prepares the full-cache side at {@code logits[off..off+vocab)}. */
    public Reference reference(float[] logits, int off) {
        int top1 = argmax(logits, off);
        double max = logits[off + top1];
        double[] p = new double[vocab];
        double sum = 0;
        for (int i = 0; i < vocab; i++) {
            p[i] = Math.exp(logits[off + i] - max);
            sum += p[i];
        }
        double mass = 0;
        for (int i = 0; i < vocab; i++) {
            p[i] /= sum;
            mass += p[i];
        }
        return new Reference(logits, off, max + Math.log(sum), p, mass, top1);
    }

    public Score compare(float[] full, int fullOff, float[] compressed, int compressedOff, int target) {
        return compare(reference(full, fullOff), compressed, compressedOff, target);
    }

    /**
     * KL(p‖q) = Σ p_i (log p_i − log q_i) = Σ p_i (x_i − y_i) + (log Z_q − log Z_p) Σ p_i, with x, y
     * the two logit rows: one exponential per entry (for Z_q) instead of three.
     */
    public Score compare(Reference p, float[] compressed, int compressedOff, int target) {
        if (target < 0 || target >= vocab) {
            throw new IllegalArgumentException("target token " + target + " outside vocabulary of " + vocab);
        }
        int top1 = argmax(compressed, compressedOff);
        double max = compressed[compressedOff + top1];
        double sum = 0;
        double dot = 0;
        float[] x = p.logits();
        int xo = p.offset();
        double[] probs = p.probabilities();
        for (int i = 0; i < vocab; i++) {
            double y = compressed[compressedOff + i];
            sum += Math.exp(y - max);
            dot += probs[i] * (x[xo + i] - y);
        }
        double logZq = max + Math.log(sum);
        // Rounding can leave a tiny negative sum for identical distributions; KL is never negative.
        double kl = Math.max(0, dot + (logZq - p.logZ()) * p.mass());
        return new Score(
                kl, p.top1() == top1, p.logZ() - x[xo + target], logZq - compressed[compressedOff + target], top1);
    }

    /** The first index of the largest of {@code x[off..off+vocab)}. */
    private int argmax(float[] x, int off) {
        float max = Float.NEGATIVE_INFINITY;
        int top1 = 0;
        for (int i = 0; i < vocab; i++) {
            if (x[off + i] > max) {
                max = x[off + i];
                top1 = i;
            }
        }
        return top1;
    }
}

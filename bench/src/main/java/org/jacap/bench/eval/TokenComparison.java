package org.jacap.bench.eval;

import java.util.Arrays;
import org.jacap.simd.Softmax;
import org.jacap.simd.VectorOps;

/**
 * Compares the next-token distribution of the full-cache run (p) with the compressed run's (q)
 * at one position. The full-cache side is prepared once ({@link #reference}) and compared with
 * every compressed run: an evaluation compares one reference with dozens of policies and ratios,
 * and over a 262k-entry vocabulary the exponentials of p dominated when they were redone per run.
 * Vectorised: the exponentials are the softmax kernel's (float, about 2 ulp), every sum is
 * accumulated in double, so each log-normaliser is within about 2.4e-7 nats and a KL within about
 * that of the exact value (below the fourth decimal the reports print); identical rows give
 * exactly 0. Stateless; safe to share between threads.
 */
public final class TokenComparison {

    /**
     * One position: KL(p‖q) in nats, whether both argmaxes agree, −log p and −log q of the true token,
     * and the compressed run's argmax (ties to the lowest id).
     */
    public record Score(double kl, boolean sameTop1, double nllFull, double nllCompressed, int compressedTop1) {}

    /**
     * The full-cache distribution at one position: its logits, log-normaliser, probabilities, their
     * sum and argmax.
     */
    public record Reference(float[] logits, int offset, double logZ, float[] probabilities, double mass, int top1) {}

    private final int vocab;

    public TokenComparison(int vocab) {
        this.vocab = vocab;
    }

    /** Prepares the full-cache side at {@code logits[off..off+vocab)}. */
    public Reference reference(float[] logits, int off) {
        float[] p = Arrays.copyOfRange(logits, off, off + vocab);
        Softmax.inPlace(p, 0, vocab);
        return new Reference(
                logits,
                off,
                Softmax.logSumExp(logits, off, vocab),
                p,
                VectorOps.sum(p, 0, vocab),
                VectorOps.argmax(logits, off, vocab));
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
        int top1 = VectorOps.argmax(compressed, compressedOff, vocab);
        double logZq = Softmax.logSumExp(compressed, compressedOff, vocab);
        float[] x = p.logits();
        int xo = p.offset();
        double dot = VectorOps.weightedDifference(p.probabilities(), 0, x, xo, compressed, compressedOff, vocab);
        // Rounding can leave a tiny negative sum for identical distributions; KL is never negative.
        double kl = Math.max(0, dot + (logZq - p.logZ()) * p.mass());
        return new Score(
                kl, p.top1() == top1, p.logZ() - x[xo + target], logZq - compressed[compressedOff + target], top1);
    }
}

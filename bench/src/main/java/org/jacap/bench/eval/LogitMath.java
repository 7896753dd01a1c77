package org.jacap.bench.eval;

/** Log-softmax, KL divergence and argmax over logits, in double (the metrics never round to float). */
public final class LogitMath {
    private LogitMath() {}

    /** {@code out[i] = logits[off+i] - logsumexp(logits[off..off+n))}. */
    public static void logSoftmax(float[] logits, int off, int n, double[] out) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, logits[off + i]);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Math.exp(logits[off + i] - max);
        }
        double logZ = max + Math.log(sum);
        for (int i = 0; i < n; i++) {
            out[i] = logits[off + i] - logZ;
        }
    }

    /** KL(p‖q) = Σ p·(log p − log q) in nats, from log-probabilities; terms with p = 0 add nothing. */
    public static double klDivergence(double[] logP, double[] logQ, int n) {
        double kl = 0;
        for (int i = 0; i < n; i++) {
            double p = Math.exp(logP[i]);
            if (p > 0) {
                kl += p * (logP[i] - logQ[i]);
            }
        }
        // Rounding can leave a tiny negative sum for identical distributions; KL is never negative.
        return Math.max(0, kl);
    }

    /** Index of the largest value; ties go to the lowest index (deterministic). */
    public static int argmax(float[] values, int off, int n) {
        int best = 0;
        for (int i = 1; i < n; i++) {
            if (values[off + i] > values[off + best]) {
                best = i;
            }
        }
        return best;
    }
}

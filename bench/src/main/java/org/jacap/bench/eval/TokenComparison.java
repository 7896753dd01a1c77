package org.jacap.bench.eval;

/**
 * Compares the next-token distribution of the full-cache run (p) with the compressed run's (q)
 * at one position. Holds its scratch arrays, so one instance serves a whole evaluation.
 */
public final class TokenComparison {

    /** One position: KL(p‖q) in nats, whether both argmaxes agree, and −log p, −log q of the true token. */
    public record Score(double kl, boolean sameTop1, double nllFull, double nllCompressed) {}

    private final int vocab;
    private final double[] logP;
    private final double[] logQ;

    public TokenComparison(int vocab) {
        this.vocab = vocab;
        this.logP = new double[vocab];
        this.logQ = new double[vocab];
    }

    public Score compare(float[] full, int fullOff, float[] compressed, int compressedOff, int target) {
        if (target < 0 || target >= vocab) {
            throw new IllegalArgumentException("target token " + target + " outside vocabulary of " + vocab);
        }
        LogitMath.logSoftmax(full, fullOff, vocab, logP);
        LogitMath.logSoftmax(compressed, compressedOff, vocab, logQ);
        double kl = LogitMath.klDivergence(logP, logQ, vocab);
        boolean same = LogitMath.argmax(full, fullOff, vocab) == LogitMath.argmax(compressed, compressedOff, vocab);
        return new Score(kl, same, -logP[target], -logQ[target]);
    }
}

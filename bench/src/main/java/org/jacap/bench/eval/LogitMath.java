package org.jacap.bench.eval;

/** Argmax over logits (KL and log-probabilities: {@link TokenComparison}, in double). */
public final class LogitMath {
    private LogitMath() {}

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

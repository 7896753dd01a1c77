package org.jacap.kv.eviction;

/** Writes protected-entry scores as the priority order {@code max + (N_prot − q)}. */
final class ProtectedScores {
    private ProtectedScores() {}

    /**
     * Sinks {@code i < nSink} score {@code max + (bonus + nSink − 1 − i)}, lowest position first;
     * max is taken over entries {@code ≥ nSink} of all heads (0 when there are none).
     */
    static void protectSinks(double[][] scores, int nSink, double bonus) {
        double max = maxOutside(scores, nSink, null);
        for (double[] row : scores) {
            for (int i = 0; i < Math.min(nSink, row.length); i++) {
                row[i] = max + (bonus + (nSink - 1 - i));
            }
        }
    }

    /**
     * Entries {@code windowStart[g] + j} score {@code max + (j + 1)}, newest first; max is taken
     * over entries below the window start of all heads.
     */
    static void protectRecent(double[][] scores, int[] windowStart) {
        double max = maxOutside(scores, 0, windowStart);
        for (int g = 0; g < scores.length; g++) {
            for (int i = windowStart[g]; i < scores[g].length; i++) {
                scores[g][i] = max + (i - windowStart[g] + 1);
            }
        }
    }

    private static double maxOutside(double[][] scores, int from, int[] until) {
        double max = Double.NEGATIVE_INFINITY;
        for (int g = 0; g < scores.length; g++) {
            int end = until == null ? scores[g].length : until[g];
            for (int i = from; i < end; i++) {
                max = Math.max(max, scores[g][i]);
            }
        }
        return max == Double.NEGATIVE_INFINITY ? 0.0 : max;
    }
}

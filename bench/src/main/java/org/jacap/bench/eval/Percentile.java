package org.jacap.bench.eval;

import java.util.Arrays;

/** Quantiles by linear interpolation between order statistics (numpy's default, "type 7"). */
public final class Percentile {
    private Percentile() {}

    /** The q-quantile (0 ≤ q ≤ 1) of {@code values}; the array is not modified. */
    public static double of(double[] values, double q) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return ofSorted(sorted, q);
    }

    public static double ofSorted(double[] sorted, double q) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        if (q < 0 || q > 1) {
            throw new IllegalArgumentException("quantile " + q + " outside [0, 1]");
        }
        double h = (sorted.length - 1) * q;
        int lo = (int) Math.floor(h);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
    }
}

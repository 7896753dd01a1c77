package org.jacap.kv.eviction.math;

import java.util.Arrays;

/** Ranking of scores: descending, equal scores toward the lower index; NaN ranks last. */
public final class TopK {
    private TopK() {}

    /** Indices 0..len-1 in rank order (a stable merge sort, so ties keep index order). */
    public static int[] rankOrder(double[] scores, int len) {
        int[] idx = new int[len];
        for (int i = 0; i < len; i++) {
            idx[i] = i;
        }
        int[] tmp = new int[len];
        for (int width = 1; width < len; width *= 2) {
            for (int lo = 0; lo < len - width; lo += 2 * width) {
                merge(scores, idx, tmp, lo, lo + width, Math.min(lo + 2 * width, len));
            }
        }
        return idx;
    }

    private static void merge(double[] s, int[] idx, int[] tmp, int lo, int mid, int hi) {
        System.arraycopy(idx, lo, tmp, lo, hi - lo);
        int i = lo;
        int j = mid;
        for (int k = lo; k < hi; k++) {
            if (i >= mid) {
                idx[k] = tmp[j++];
            } else if (j >= hi) {
                idx[k] = tmp[i++];
            } else if (before(s[tmp[j]], s[tmp[i]])) {
                idx[k] = tmp[j++];
            } // strictly better only: stable
            else {
                idx[k] = tmp[i++];
            }
        }
    }

    /** Strictly ahead in rank; −0.0 ties with 0.0, NaN is behind everything. */
    private static boolean before(double a, double b) {
        if (Double.isNaN(a)) {
            return false;
        }
        if (Double.isNaN(b)) {
            return true;
        }
        return a > b;
    }

    /** The {@code k} best indices of {@code scores}, ascending. */
    public static int[] top(double[] scores, int k) {
        int[] order = rankOrder(scores, scores.length);
        int[] kept = Arrays.copyOf(order, Math.min(k, order.length));
        Arrays.sort(kept);
        return kept;
    }
}

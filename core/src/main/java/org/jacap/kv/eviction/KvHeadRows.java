package org.jacap.kv.eviction;

import org.jacap.JacapException;

/**
 * The cached entries of one (layer, KV head), in double: row-major keys (post-RoPE, as cached),
 * values and original positions, ascending. Arrays may be longer than {@code length} so the
 * engine can reuse buffers; only the first {@code length} rows count.
 */
public record KvHeadRows(int length, int headDim, double[] keys, double[] values, int[] positions) {
    public KvHeadRows {
        if (length < 0
                || headDim <= 0
                || keys.length < (long) length * headDim
                || values.length < (long) length * headDim
                || positions.length < length) {
            throw new JacapException("KV head rows too short for " + length + " entries of dim " + headDim);
        }
    }

    /** Copies float cache rows (the engine's layout: {@code keys[len*d]}, {@code values[len*d]}). */
    public static KvHeadRows copyOf(float[] keys, float[] values, int[] positions, int length, int headDim) {
        double[] k = new double[length * headDim];
        double[] v = new double[length * headDim];
        for (int i = 0; i < k.length; i++) {
            k[i] = keys[i];
            v[i] = values[i];
        }
        return new KvHeadRows(length, headDim, k, v, java.util.Arrays.copyOf(positions, length));
    }

    /** Entries at positions 0..n-1, from {@code [n][d]} arrays (tests, fixtures). */
    public static KvHeadRows ofRows(double[][] keys, double[][] values) {
        int n = keys.length;
        int d = n == 0 ? 1 : keys[0].length;
        double[] k = new double[n * d];
        double[] v = new double[n * d];
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(keys[i], 0, k, i * d, d);
            System.arraycopy(values[i], 0, v, i * d, d);
            p[i] = i;
        }
        return new KvHeadRows(n, d, k, v, p);
    }

    /** Index of the first entry whose position is at least {@code position} (positions ascend). */
    public int firstIndexAtOrAfter(int position) {
        int lo = 0;
        int hi = length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (positions[mid] < position) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}

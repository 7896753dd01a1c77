package org.jacap.kv.eviction;

/**
 * One KV head's keys and values transposed to columns ({@code [d][n]}, coordinate a of entry i at
 * {@code a*n + i}), so per-entry quantities are computed by element-wise loops across entries:
 * vectorised even for d = 8, and the same arithmetic for every entry.
 */
final class HeadColumns {
    final int n;
    final int d;
    final double[] keys;
    final double[] values;

    private HeadColumns(int n, int d, double[] keys, double[] values) {
        this.n = n;
        this.d = d;
        this.keys = keys;
        this.values = values;
    }

    static HeadColumns of(KvHeadRows rows) {
        int n = rows.length();
        int d = rows.headDim();
        double[] k = new double[n * d];
        double[] v = new double[n * d];
        double[] rk = rows.keys();
        double[] rv = rows.values();
        for (int i = 0; i < n; i++) {
            for (int a = 0; a < d; a++) {
                k[a * n + i] = rk[i * d + a];
                v[a * n + i] = rv[i * d + a];
            }
        }
        return new HeadColumns(n, d, k, v);
    }

    /** {@code out[outOff+i] = Σ_a vec[a]·k_{from+i,a}}, summed in order a = 0..d-1. */
    void keyDots(double[] vec, int from, int count, double[] out, int outOff) {
        java.util.Arrays.fill(out, outOff, outOff + count, 0.0);
        for (int a = 0; a < d; a++) DoubleLanes.axpy(vec[a], keys, a * n + from, out, outOff, count);
    }

    /** {@code out[i] = ‖k_i‖²} for all entries. */
    double[] keyNormsSquared() {
        return squaredNorms(keys);
    }

    /** {@code out[i] = ‖v_i‖²} for all entries. */
    double[] valueNormsSquared() {
        return squaredNorms(values);
    }

    private double[] squaredNorms(double[] cols) {
        double[] out = new double[n];
        for (int a = 0; a < d; a++) DoubleLanes.multiplyAdd(cols, a * n, cols, a * n, out, 0, n);
        return out;
    }
}

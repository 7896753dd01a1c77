package org.jacap.kv.eviction;

import org.jacap.kv.eviction.math.DoubleLanes;

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
        return new HeadColumns(
                rows.length(),
                rows.headDim(),
                transpose(rows.keys(), rows.length(), rows.headDim()),
                transpose(rows.values(), rows.length(), rows.headDim()));
    }

    /** Keys only, for scorers that never read values ({@link #values} is null). */
    static HeadColumns keysOf(KvHeadRows rows) {
        return new HeadColumns(
                rows.length(), rows.headDim(), transpose(rows.keys(), rows.length(), rows.headDim()), null);
    }

    private static double[] transpose(double[] rowMajor, int n, int d) {
        double[] out = new double[n * d];
        for (int i0 = 0; i0 < n; i0 += 64) { // tiles keep both sides in cache
            int i1 = Math.min(n, i0 + 64);
            for (int a = 0; a < d; a++) {
                for (int i = i0; i < i1; i++) {
                    out[a * n + i] = rowMajor[i * d + a];
                }
            }
        }
        return out;
    }

    /** {@code out[outOff+i] = Σ_a vec[a]·k_{from+i,a}}, summed in order a = 0..d-1. */
    void keyDots(double[] vec, int from, int count, double[] out, int outOff) {
        dots(keys, vec, from, count, out, outOff);
    }

    /** {@code out[outOff+i] = Σ_a vec[a]·v_{from+i,a}}. */
    void valueDots(double[] vec, int from, int count, double[] out, int outOff) {
        dots(values, vec, from, count, out, outOff);
    }

    private void dots(double[] cols, double[] vec, int from, int count, double[] out, int outOff) {
        java.util.Arrays.fill(out, outOff, outOff + count, 0.0);
        for (int a = 0; a < d; a++) {
            DoubleLanes.axpy(vec[a], cols, a * n + from, out, outOff, count);
        }
    }

    /**
     * {@code out[i] = k_{from+i}ᵀ C k_{from+i}} for symmetric row-major d×d C, from its upper
     * triangle: {@code Σ_a k_a (C_aa k_a + Σ_{b>a} 2 C_ab k_b)}. {@code partial} is scratch of count.
     */
    void keyQuadraticForms(double[] c, int from, int count, double[] out, double[] partial) {
        java.util.Arrays.fill(out, 0, count, 0.0);
        for (int a = 0; a < d; a++) {
            java.util.Arrays.fill(partial, 0, count, 0.0);
            DoubleLanes.axpy(c[a * d + a], keys, a * n + from, partial, 0, count);
            for (int b = a + 1; b < d; b++) {
                DoubleLanes.axpy(2.0 * c[a * d + b], keys, b * n + from, partial, 0, count);
            }
            DoubleLanes.multiplyAdd(keys, a * n + from, partial, 0, out, 0, count);
        }
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
        for (int a = 0; a < d; a++) {
            DoubleLanes.multiplyAdd(cols, a * n, cols, a * n, out, 0, n);
        }
        return out;
    }
}

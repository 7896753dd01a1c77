package org.jacap.simd;

import java.util.Objects;

/**
 * Scalar twin of {@link VectorOps}: the same methods written as plain loops, the reference the
 * vector kernels are tested against and the baseline of the JMH benchmarks.
 */
public final class ScalarOps {

    private ScalarOps() {}

    public static float dot(float[] a, int ao, float[] b, int bo, int n) {
        Objects.checkFromIndexSize(ao, n, a.length);
        Objects.checkFromIndexSize(bo, n, b.length);
        float s = 0f;
        for (int i = 0; i < n; i++) {
            s += a[ao + i] * b[bo + i];
        }
        return s;
    }

    public static void axpy(float alpha, float[] x, int xo, float[] y, int yo, int n) {
        Objects.checkFromIndexSize(xo, n, x.length);
        Objects.checkFromIndexSize(yo, n, y.length);
        for (int i = 0; i < n; i++) {
            y[yo + i] += alpha * x[xo + i];
        }
    }

    public static void add(float[] x, int xo, float[] y, int yo, int n) {
        Objects.checkFromIndexSize(xo, n, x.length);
        Objects.checkFromIndexSize(yo, n, y.length);
        for (int i = 0; i < n; i++) {
            y[yo + i] += x[xo + i];
        }
    }

    public static void mul(float[] x, int xo, float[] y, int yo, int n) {
        Objects.checkFromIndexSize(xo, n, x.length);
        Objects.checkFromIndexSize(yo, n, y.length);
        for (int i = 0; i < n; i++) {
            y[yo + i] *= x[xo + i];
        }
    }

    public static void scale(float[] x, int o, int n, float s) {
        Objects.checkFromIndexSize(o, n, x.length);
        for (int i = 0; i < n; i++) {
            x[o + i] *= s;
        }
    }

    public static double sum(float[] x, int o, int n) {
        Objects.checkFromIndexSize(o, n, x.length);
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += x[o + i];
        }
        return s;
    }

    public static double sumOfSquares(float[] x, int o, int n) {
        Objects.checkFromIndexSize(o, n, x.length);
        double s = 0;
        for (int i = 0; i < n; i++) {
            float v = x[o + i];
            s += v * v;
        }
        return s;
    }

    public static float max(float[] x, int o, int n) {
        Objects.checkFromIndexSize(o, n, x.length);
        float m = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, x[o + i]);
        }
        return m;
    }

    public static boolean allFinite(float[] x, int o, int n) {
        Objects.checkFromIndexSize(o, n, x.length);
        for (int i = 0; i < n; i++) {
            if (!Float.isFinite(x[o + i])) {
                return false;
            }
        }
        return true;
    }

    public static int argmax(float[] x, int o, int n) {
        return firstOf(x, o, 0, n, max(x, o, n));
    }

    /** The first i in [from, n) with x[o+i] = m (a NaN m matching the first NaN); −1 when there is none. */
    static int firstOf(float[] x, int o, int from, int n, float m) {
        for (int i = from; i < n; i++) {
            float v = x[o + i];
            if (v == m || (v != v && m != m)) {
                return i;
            }
        }
        return -1;
    }

    public static double weightedDifference(float[] w, int wo, float[] a, int ao, float[] b, int bo, int n) {
        Objects.checkFromIndexSize(wo, n, w.length);
        Objects.checkFromIndexSize(ao, n, a.length);
        Objects.checkFromIndexSize(bo, n, b.length);
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += w[wo + i] * ((double) a[ao + i] - b[bo + i]);
        }
        return s;
    }

    public static double dot(double[] a, int ao, double[] b, int bo, int n) {
        Objects.checkFromIndexSize(ao, n, a.length);
        Objects.checkFromIndexSize(bo, n, b.length);
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[ao + i] * b[bo + i];
        }
        return s;
    }

    public static void axpy(double alpha, double[] x, int xo, double[] y, int yo, int n) {
        Objects.checkFromIndexSize(xo, n, x.length);
        Objects.checkFromIndexSize(yo, n, y.length);
        for (int i = 0; i < n; i++) {
            y[yo + i] += alpha * x[xo + i];
        }
    }

    public static void syrUpper(double alpha, double[] v, int vo, double[] a, int d) {
        VectorOps.checkSquare(a, d);
        Objects.checkFromIndexSize(vo, d, v.length);
        for (int r = 0; r < d; r++) {
            double c = alpha * v[vo + r];
            for (int col = r; col < d; col++) {
                a[r * d + col] += c * v[vo + col];
            }
        }
    }

    public static void syrkUpper(double[] w, int wo, double[] v, int vOff, int m, int d, double[] a) {
        VectorOps.checkSquare(a, d);
        Objects.checkFromIndexSize(wo, m, w.length);
        if (d > 0) {
            Objects.checkFromIndexSize(vOff, Math.multiplyExact(m, d), v.length);
        }
        for (int i = 0; i < m; i++) {
            syrUpper(w[wo + i], v, vOff + i * d, a, d);
        }
    }
}

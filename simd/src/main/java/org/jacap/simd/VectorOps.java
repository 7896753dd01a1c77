package org.jacap.simd;

import java.util.Objects;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Level-1 vector kernels on flat arrays with explicit offsets, vectorised with the preferred
 * species. {@link ScalarOps} is the scalar twin of every method (same signatures); tests compare
 * the two. Ranges are checked on entry, so a bad offset fails with an
 * {@link IndexOutOfBoundsException} before anything is written.
 */
public final class VectorOps {

    /**
     * The CPU's widest float species (8 lanes on AVX2, 16 on AVX-512): these level-1 kernels,
     * attention, norms, softmax, RoPE. The weight kernels use {@link Layouts#F256} instead.
     */
    static final VectorSpecies<Float> F_PREFERRED = FloatVector.SPECIES_PREFERRED;
    /** The CPU's widest double species. */
    static final VectorSpecies<Double> D_PREFERRED = DoubleVector.SPECIES_PREFERRED;
    /** Float species with as many lanes as {@link #D_PREFERRED}: loads that widen to one double vector. */
    static final VectorSpecies<Float> FH =
            VectorSpecies.of(float.class, VectorShape.forBitSize(D_PREFERRED.vectorBitSize() / 2));

    private VectorOps() {}

    // ---------------------------------------------------------------- float

    /**
     * Σ a[ao+i]·b[bo+i]; float accumulation in four independent vector accumulators (as ggml), at
     * the CPU's width, the tail multiplied then added. A deliberate twin of {@link FloatLoops#dot}
     * (the weight-row dot: always 256-bit, FMA tail): each keeps the summation order its callers'
     * results are pinned to.
     */
    public static float dot(float[] a, int ao, float[] b, int bo, int n) {
        Objects.checkFromIndexSize(ao, n, a.length);
        Objects.checkFromIndexSize(bo, n, b.length);
        int l = F_PREFERRED.length();
        int i = 0;
        float s = 0f;
        if (n >= l) {
            FloatVector acc0 = FloatVector.zero(F_PREFERRED);
            FloatVector acc1 = FloatVector.zero(F_PREFERRED);
            FloatVector acc2 = FloatVector.zero(F_PREFERRED);
            FloatVector acc3 = FloatVector.zero(F_PREFERRED);
            for (; i <= n - 4 * l; i += 4 * l) {
                acc0 = FloatVector.fromArray(F_PREFERRED, a, ao + i)
                        .fma(FloatVector.fromArray(F_PREFERRED, b, bo + i), acc0);
                acc1 = FloatVector.fromArray(F_PREFERRED, a, ao + i + l)
                        .fma(FloatVector.fromArray(F_PREFERRED, b, bo + i + l), acc1);
                acc2 = FloatVector.fromArray(F_PREFERRED, a, ao + i + 2 * l)
                        .fma(FloatVector.fromArray(F_PREFERRED, b, bo + i + 2 * l), acc2);
                acc3 = FloatVector.fromArray(F_PREFERRED, a, ao + i + 3 * l)
                        .fma(FloatVector.fromArray(F_PREFERRED, b, bo + i + 3 * l), acc3);
            }
            for (; i <= n - l; i += l) {
                acc0 = FloatVector.fromArray(F_PREFERRED, a, ao + i)
                        .fma(FloatVector.fromArray(F_PREFERRED, b, bo + i), acc0);
            }
            s = LaneSums.sum(acc0.add(acc1).add(acc2.add(acc3)));
        }
        for (; i < n; i++) {
            s += a[ao + i] * b[bo + i];
        }
        return s;
    }

    /** y[yo+i] += alpha·x[xo+i] (fused multiply-add on the vector lanes). */
    public static void axpy(float alpha, float[] x, int xo, float[] y, int yo, int n) {
        Objects.checkFromIndexSize(xo, n, x.length);
        Objects.checkFromIndexSize(yo, n, y.length);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        FloatVector va = FloatVector.broadcast(F_PREFERRED, alpha);
        for (; i < bound; i += F_PREFERRED.length()) {
            FloatVector.fromArray(F_PREFERRED, x, xo + i)
                    .fma(va, FloatVector.fromArray(F_PREFERRED, y, yo + i))
                    .intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] += alpha * x[xo + i];
        }
    }

    /** y[yo+i] += x[xo+i]. */
    public static void add(float[] x, int xo, float[] y, int yo, int n) {
        Objects.checkFromIndexSize(xo, n, x.length);
        Objects.checkFromIndexSize(yo, n, y.length);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        for (; i < bound; i += F_PREFERRED.length()) {
            FloatVector.fromArray(F_PREFERRED, y, yo + i)
                    .add(FloatVector.fromArray(F_PREFERRED, x, xo + i))
                    .intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] += x[xo + i];
        }
    }

    /** y[yo+i] *= x[xo+i]. */
    public static void mul(float[] x, int xo, float[] y, int yo, int n) {
        Objects.checkFromIndexSize(xo, n, x.length);
        Objects.checkFromIndexSize(yo, n, y.length);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        for (; i < bound; i += F_PREFERRED.length()) {
            FloatVector.fromArray(F_PREFERRED, y, yo + i)
                    .mul(FloatVector.fromArray(F_PREFERRED, x, xo + i))
                    .intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] *= x[xo + i];
        }
    }

    /** x[o+i] *= s. */
    public static void scale(float[] x, int o, int n, float s) {
        Objects.checkFromIndexSize(o, n, x.length);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        for (; i < bound; i += F_PREFERRED.length()) {
            FloatVector.fromArray(F_PREFERRED, x, o + i).mul(s).intoArray(x, o + i);
        }
        for (; i < n; i++) {
            x[o + i] *= s;
        }
    }

    /** Σ x[o+i], each element widened to double before it is added. */
    public static double sum(float[] x, int o, int n) {
        Objects.checkFromIndexSize(o, n, x.length);
        int l = FH.length();
        int i = 0;
        double s = 0;
        if (n >= l) {
            DoubleVector acc0 = DoubleVector.zero(D_PREFERRED);
            DoubleVector acc1 = DoubleVector.zero(D_PREFERRED);
            for (; i <= n - 2 * l; i += 2 * l) {
                acc0 = acc0.add(widen(FloatVector.fromArray(FH, x, o + i)));
                acc1 = acc1.add(widen(FloatVector.fromArray(FH, x, o + i + l)));
            }
            for (; i <= n - l; i += l) {
                acc0 = acc0.add(widen(FloatVector.fromArray(FH, x, o + i)));
            }
            s = LaneSums.sum(acc0.add(acc1));
        }
        for (; i < n; i++) {
            s += x[o + i];
        }
        return s;
    }

    /**
     * Σ x[o+i]², each square rounded to float and then added in double: the same terms as ggml's
     * RMS norm, so results agree with llama.cpp to double rounding.
     */
    public static double sumOfSquares(float[] x, int o, int n) {
        Objects.checkFromIndexSize(o, n, x.length);
        int l = FH.length();
        int i = 0;
        double s = 0;
        if (n >= l) {
            DoubleVector acc0 = DoubleVector.zero(D_PREFERRED);
            DoubleVector acc1 = DoubleVector.zero(D_PREFERRED);
            for (; i <= n - 2 * l; i += 2 * l) {
                FloatVector v0 = FloatVector.fromArray(FH, x, o + i);
                FloatVector v1 = FloatVector.fromArray(FH, x, o + i + l);
                acc0 = acc0.add(widen(v0.mul(v0)));
                acc1 = acc1.add(widen(v1.mul(v1)));
            }
            for (; i <= n - l; i += l) {
                FloatVector v0 = FloatVector.fromArray(FH, x, o + i);
                acc0 = acc0.add(widen(v0.mul(v0)));
            }
            s = LaneSums.sum(acc0.add(acc1));
        }
        for (; i < n; i++) {
            float v = x[o + i];
            s += v * v;
        }
        return s;
    }

    /** max x[o+i]; {@code -Infinity} when n = 0. NaN entries propagate. */
    public static float max(float[] x, int o, int n) {
        Objects.checkFromIndexSize(o, n, x.length);
        int i = 0;
        float m = Float.NEGATIVE_INFINITY;
        int bound = F_PREFERRED.loopBound(n);
        if (bound > 0) {
            FloatVector acc = FloatVector.broadcast(F_PREFERRED, Float.NEGATIVE_INFINITY);
            for (; i < bound; i += F_PREFERRED.length()) {
                acc = acc.max(FloatVector.fromArray(F_PREFERRED, x, o + i));
            }
            m = acc.reduceLanes(VectorOperators.MAX);
        }
        for (; i < n; i++) {
            m = Math.max(m, x[o + i]);
        }
        return m;
    }

    /** Whether every x[o+i] is finite (no NaN, no infinity): 0·v is ±0 for finite v and NaN otherwise. */
    public static boolean allFinite(float[] x, int o, int n) {
        Objects.checkFromIndexSize(o, n, x.length);
        int i = 0;
        float s = 0f;
        int bound = F_PREFERRED.loopBound(n);
        if (bound > 0) {
            FloatVector acc = FloatVector.zero(F_PREFERRED);
            for (; i < bound; i += F_PREFERRED.length()) {
                acc = acc.add(FloatVector.fromArray(F_PREFERRED, x, o + i).mul(0f));
            }
            s = acc.reduceLanes(VectorOperators.ADD);
        }
        for (; i < n; i++) {
            s += x[o + i] * 0f;
        }
        return s == 0f;
    }

    /**
     * The first index of the largest of x[o..o+n) (ties to the lowest index); with a NaN entry, the
     * first NaN's index; 0 when every entry is −∞; −1 when n = 0.
     */
    public static int argmax(float[] x, int o, int n) {
        float m = max(x, o, n);
        int l = F_PREFERRED.length();
        int i = 0;
        if (!Float.isNaN(m)) {
            FloatVector vm = FloatVector.broadcast(F_PREFERRED, m);
            for (int bound = F_PREFERRED.loopBound(n); i < bound; i += l) {
                VectorMask<Float> hit =
                        FloatVector.fromArray(F_PREFERRED, x, o + i).eq(vm);
                if (hit.anyTrue()) {
                    return i + hit.firstTrue();
                }
            }
        }
        return ScalarOps.firstOf(x, o, i, n, m);
    }

    /**
     * Σ w[wo+i]·(a[ao+i] − b[bo+i]) in double, every element widened first: the cross term of a KL
     * divergence, Σ p (x − y), over a probability row and two logit rows.
     */
    public static double weightedDifference(float[] w, int wo, float[] a, int ao, float[] b, int bo, int n) {
        Objects.checkFromIndexSize(wo, n, w.length);
        Objects.checkFromIndexSize(ao, n, a.length);
        Objects.checkFromIndexSize(bo, n, b.length);
        int l = FH.length();
        int i = 0;
        double s = 0;
        if (n >= l) {
            DoubleVector acc0 = DoubleVector.zero(D_PREFERRED);
            DoubleVector acc1 = DoubleVector.zero(D_PREFERRED);
            for (; i <= n - 2 * l; i += 2 * l) {
                DoubleVector d0 =
                        widen(FloatVector.fromArray(FH, a, ao + i)).sub(widen(FloatVector.fromArray(FH, b, bo + i)));
                DoubleVector d1 = widen(FloatVector.fromArray(FH, a, ao + i + l))
                        .sub(widen(FloatVector.fromArray(FH, b, bo + i + l)));
                acc0 = widen(FloatVector.fromArray(FH, w, wo + i)).fma(d0, acc0);
                acc1 = widen(FloatVector.fromArray(FH, w, wo + i + l)).fma(d1, acc1);
            }
            for (; i <= n - l; i += l) {
                DoubleVector d0 =
                        widen(FloatVector.fromArray(FH, a, ao + i)).sub(widen(FloatVector.fromArray(FH, b, bo + i)));
                acc0 = widen(FloatVector.fromArray(FH, w, wo + i)).fma(d0, acc0);
            }
            s = LaneSums.sum(acc0.add(acc1));
        }
        for (; i < n; i++) {
            s += w[wo + i] * ((double) a[ao + i] - b[bo + i]);
        }
        return s;
    }

    static DoubleVector widen(FloatVector h) {
        return (DoubleVector) h.convertShape(VectorOperators.F2D, D_PREFERRED, 0);
    }

    // ---------------------------------------------------------------- double

    /** Σ a[ao+i]·b[bo+i] in double. */
    public static double dot(double[] a, int ao, double[] b, int bo, int n) {
        Objects.checkFromIndexSize(ao, n, a.length);
        Objects.checkFromIndexSize(bo, n, b.length);
        int l = D_PREFERRED.length();
        int i = 0;
        double s = 0;
        if (n >= l) {
            DoubleVector acc0 = DoubleVector.zero(D_PREFERRED);
            DoubleVector acc1 = DoubleVector.zero(D_PREFERRED);
            DoubleVector acc2 = DoubleVector.zero(D_PREFERRED);
            DoubleVector acc3 = DoubleVector.zero(D_PREFERRED);
            for (; i <= n - 4 * l; i += 4 * l) {
                acc0 = DoubleVector.fromArray(D_PREFERRED, a, ao + i)
                        .fma(DoubleVector.fromArray(D_PREFERRED, b, bo + i), acc0);
                acc1 = DoubleVector.fromArray(D_PREFERRED, a, ao + i + l)
                        .fma(DoubleVector.fromArray(D_PREFERRED, b, bo + i + l), acc1);
                acc2 = DoubleVector.fromArray(D_PREFERRED, a, ao + i + 2 * l)
                        .fma(DoubleVector.fromArray(D_PREFERRED, b, bo + i + 2 * l), acc2);
                acc3 = DoubleVector.fromArray(D_PREFERRED, a, ao + i + 3 * l)
                        .fma(DoubleVector.fromArray(D_PREFERRED, b, bo + i + 3 * l), acc3);
            }
            for (; i <= n - l; i += l) {
                acc0 = DoubleVector.fromArray(D_PREFERRED, a, ao + i)
                        .fma(DoubleVector.fromArray(D_PREFERRED, b, bo + i), acc0);
            }
            s = LaneSums.sum(acc0.add(acc1).add(acc2.add(acc3)));
        }
        for (; i < n; i++) {
            s += a[ao + i] * b[bo + i];
        }
        return s;
    }

    /** y[yo+i] += alpha·x[xo+i] in double. */
    public static void axpy(double alpha, double[] x, int xo, double[] y, int yo, int n) {
        Objects.checkFromIndexSize(xo, n, x.length);
        Objects.checkFromIndexSize(yo, n, y.length);
        axpyUnchecked(alpha, x, xo, y, yo, n);
    }

    private static void axpyUnchecked(double alpha, double[] x, int xo, double[] y, int yo, int n) {
        int i = 0;
        int bound = D_PREFERRED.loopBound(n);
        DoubleVector va = DoubleVector.broadcast(D_PREFERRED, alpha);
        for (; i < bound; i += D_PREFERRED.length()) {
            DoubleVector.fromArray(D_PREFERRED, x, xo + i)
                    .fma(va, DoubleVector.fromArray(D_PREFERRED, y, yo + i))
                    .intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] += alpha * x[xo + i];
        }
    }

    /**
     * Symmetric rank-1 update of the upper triangle: A[r][c] += alpha·v[r]·v[c] for c ≥ r, where A
     * is d×d row-major at offset 0 and v starts at vo. The strict lower triangle is not touched.
     */
    public static void syrUpper(double alpha, double[] v, int vo, double[] a, int d) {
        checkSquare(a, d);
        Objects.checkFromIndexSize(vo, d, v.length);
        for (int r = 0; r < d; r++) {
            axpyUnchecked(alpha * v[vo + r], v, vo + r, a, r * d + r, d - r);
        }
    }

    /**
     * Symmetric rank-m update of the upper triangle: A += Σ_i w[wo+i]·v_i v_iᵀ where v_i is row i
     * of the m×d row-major block at vOff. Same result as m calls of {@link #syrUpper} up to
     * rounding, but reads A once per four rows of V instead of once per row — the hot spot of
     * leverage scoring (O(m·d²)).
     */
    public static void syrkUpper(double[] w, int wo, double[] v, int vOff, int m, int d, double[] a) {
        checkSquare(a, d);
        Objects.checkFromIndexSize(wo, m, w.length);
        if (d > 0) {
            Objects.checkFromIndexSize(vOff, Math.multiplyExact(m, d), v.length);
        }
        int l = D_PREFERRED.length();
        int i = 0;
        for (; i + 4 <= m; i += 4) {
            int v0 = vOff + i * d;
            int v1 = v0 + d;
            int v2 = v1 + d;
            int v3 = v2 + d;
            double w0 = w[wo + i];
            double w1 = w[wo + i + 1];
            double w2 = w[wo + i + 2];
            double w3 = w[wo + i + 3];
            for (int r = 0; r < d; r++) {
                double c0 = w0 * v[v0 + r];
                double c1 = w1 * v[v1 + r];
                double c2 = w2 * v[v2 + r];
                double c3 = w3 * v[v3 + r];
                DoubleVector b0 = DoubleVector.broadcast(D_PREFERRED, c0);
                DoubleVector b1 = DoubleVector.broadcast(D_PREFERRED, c1);
                DoubleVector b2 = DoubleVector.broadcast(D_PREFERRED, c2);
                DoubleVector b3 = DoubleVector.broadcast(D_PREFERRED, c3);
                int row = r * d;
                int c = r;
                for (; c <= d - l; c += l) {
                    DoubleVector acc = DoubleVector.fromArray(D_PREFERRED, a, row + c);
                    acc = DoubleVector.fromArray(D_PREFERRED, v, v0 + c).fma(b0, acc);
                    acc = DoubleVector.fromArray(D_PREFERRED, v, v1 + c).fma(b1, acc);
                    acc = DoubleVector.fromArray(D_PREFERRED, v, v2 + c).fma(b2, acc);
                    acc = DoubleVector.fromArray(D_PREFERRED, v, v3 + c).fma(b3, acc);
                    acc.intoArray(a, row + c);
                }
                for (; c < d; c++) {
                    a[row + c] += c0 * v[v0 + c] + c1 * v[v1 + c] + c2 * v[v2 + c] + c3 * v[v3 + c];
                }
            }
        }
        for (; i < m; i++) {
            syrUpper(w[wo + i], v, vOff + i * d, a, d);
        }
    }

    /** Copies the upper triangle of the d×d row-major matrix onto its lower triangle (scalar; O(d²)). */
    public static void copyUpperToLower(double[] a, int d) {
        checkSquare(a, d);
        for (int r = 1; r < d; r++) {
            for (int c = 0; c < r; c++) {
                a[r * d + c] = a[c * d + r];
            }
        }
    }

    static void checkSquare(double[] a, int d) {
        if (d < 0) {
            throw new IllegalArgumentException("negative dimension " + d);
        }
        Objects.checkFromIndexSize(0, Math.multiplyExact(d, d), a.length);
    }
}

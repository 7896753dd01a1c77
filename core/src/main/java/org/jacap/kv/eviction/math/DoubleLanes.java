package org.jacap.kv.eviction.math;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;
import org.jacap.simd.LaneSums;

/**
 * Double-precision loops of the eviction scorers, vectorised with a scalar twin each. The
 * element-wise kernels use one fused multiply-add per element in both the vector body and the
 * scalar tail, so every element gets bit-identical arithmetic wherever it falls: tokens with
 * identical inputs get identical scores (the fixtures' exact ties depend on it).
 */
public final class DoubleLanes {
    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();
    /**
     * Rows shorter than this take the scalar loop (bit-identical for the element-wise kernels):
     * a vector loop of one or two steps gains nothing, and until the JIT compiles it (eviction
     * events are rare) the Vector API runs far slower than plain loops.
     */
    private static final int SHORT = 4 * LANES;

    private DoubleLanes() {}

    /** {@code y[yo+i] = fma(x[xo+i], a, y[yo+i])}. */
    public static void axpy(double a, double[] x, int xo, double[] y, int yo, int len) {
        int i = 0;
        if (len >= SHORT) {
            DoubleVector va = DoubleVector.broadcast(SPECIES, a);
            for (int bound = SPECIES.loopBound(len); i < bound; i += LANES) {
                DoubleVector.fromArray(SPECIES, x, xo + i)
                        .fma(va, DoubleVector.fromArray(SPECIES, y, yo + i))
                        .intoArray(y, yo + i);
            }
        }
        for (; i < len; i++) {
            y[yo + i] = Math.fma(x[xo + i], a, y[yo + i]);
        }
    }

    public static void axpyScalar(double a, double[] x, int xo, double[] y, int yo, int len) {
        for (int i = 0; i < len; i++) {
            y[yo + i] = Math.fma(x[xo + i], a, y[yo + i]);
        }
    }

    /**
     * Four axpys in one pass, in order a0..a3: {@code y = fma(x3,a3, fma(x2,a2, fma(x1,a1, fma(x0,a0,y))))}
     * per element, bit-identical to four {@link #axpy} calls with fewer loads and stores.
     */
    public static void axpy4(
            double a0,
            double a1,
            double a2,
            double a3,
            double[] x,
            int x0,
            int x1,
            int x2,
            int x3,
            double[] y,
            int yo,
            int len) {
        int i = 0;
        if (len >= SHORT) {
            DoubleVector v0 = DoubleVector.broadcast(SPECIES, a0);
            DoubleVector v1 = DoubleVector.broadcast(SPECIES, a1);
            DoubleVector v2 = DoubleVector.broadcast(SPECIES, a2);
            DoubleVector v3 = DoubleVector.broadcast(SPECIES, a3);
            for (int bound = SPECIES.loopBound(len); i < bound; i += LANES) {
                DoubleVector acc = DoubleVector.fromArray(SPECIES, y, yo + i);
                acc = DoubleVector.fromArray(SPECIES, x, x0 + i).fma(v0, acc);
                acc = DoubleVector.fromArray(SPECIES, x, x1 + i).fma(v1, acc);
                acc = DoubleVector.fromArray(SPECIES, x, x2 + i).fma(v2, acc);
                acc = DoubleVector.fromArray(SPECIES, x, x3 + i).fma(v3, acc);
                acc.intoArray(y, yo + i);
            }
        }
        for (; i < len; i++) {
            double acc = y[yo + i];
            acc = Math.fma(x[x0 + i], a0, acc);
            acc = Math.fma(x[x1 + i], a1, acc);
            acc = Math.fma(x[x2 + i], a2, acc);
            y[yo + i] = Math.fma(x[x3 + i], a3, acc);
        }
    }

    public static void axpy4Scalar(
            double a0,
            double a1,
            double a2,
            double a3,
            double[] x,
            int x0,
            int x1,
            int x2,
            int x3,
            double[] y,
            int yo,
            int len) {
        axpyScalar(a0, x, x0, y, yo, len);
        axpyScalar(a1, x, x1, y, yo, len);
        axpyScalar(a2, x, x2, y, yo, len);
        axpyScalar(a3, x, x3, y, yo, len);
    }

    /** Four dot products of {@code x} with rows of {@code y} at {@code y0..y3}, into {@code out[0..3]}. */
    public static void dot4(double[] x, int xo, double[] y, int y0, int y1, int y2, int y3, int len, double[] out) {
        int i = 0;
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        if (len >= SHORT) {
            DoubleVector c0 = DoubleVector.zero(SPECIES);
            DoubleVector c1 = c0;
            DoubleVector c2 = c0;
            DoubleVector c3 = c0;
            for (int bound = SPECIES.loopBound(len); i < bound; i += LANES) {
                DoubleVector vx = DoubleVector.fromArray(SPECIES, x, xo + i);
                c0 = vx.fma(DoubleVector.fromArray(SPECIES, y, y0 + i), c0);
                c1 = vx.fma(DoubleVector.fromArray(SPECIES, y, y1 + i), c1);
                c2 = vx.fma(DoubleVector.fromArray(SPECIES, y, y2 + i), c2);
                c3 = vx.fma(DoubleVector.fromArray(SPECIES, y, y3 + i), c3);
            }
            s0 = LaneSums.sum(c0);
            s1 = LaneSums.sum(c1);
            s2 = LaneSums.sum(c2);
            s3 = LaneSums.sum(c3);
        }
        for (; i < len; i++) {
            double xi = x[xo + i];
            s0 = Math.fma(xi, y[y0 + i], s0);
            s1 = Math.fma(xi, y[y1 + i], s1);
            s2 = Math.fma(xi, y[y2 + i], s2);
            s3 = Math.fma(xi, y[y3 + i], s3);
        }
        out[0] = s0;
        out[1] = s1;
        out[2] = s2;
        out[3] = s3;
    }

    /** {@code acc[ao+i] = fma(x[xo+i], y[yo+i], acc[ao+i])}. */
    public static void multiplyAdd(double[] x, int xo, double[] y, int yo, double[] acc, int ao, int len) {
        int i = 0;
        for (int bound = len >= SHORT ? SPECIES.loopBound(len) : 0; i < bound; i += LANES) {
            DoubleVector.fromArray(SPECIES, x, xo + i)
                    .fma(DoubleVector.fromArray(SPECIES, y, yo + i), DoubleVector.fromArray(SPECIES, acc, ao + i))
                    .intoArray(acc, ao + i);
        }
        for (; i < len; i++) {
            acc[ao + i] = Math.fma(x[xo + i], y[yo + i], acc[ao + i]);
        }
    }

    public static void multiplyAddScalar(double[] x, int xo, double[] y, int yo, double[] acc, int ao, int len) {
        for (int i = 0; i < len; i++) {
            acc[ao + i] = Math.fma(x[xo + i], y[yo + i], acc[ao + i]);
        }
    }

    /** {@code y[yo+i] /= divisor} (a true division, as the scalar tail). */
    public static void divide(double[] y, int yo, double divisor, int len) {
        int i = 0;
        DoubleVector vd = len >= SHORT ? DoubleVector.broadcast(SPECIES, divisor) : null;
        for (int bound = len >= SHORT ? SPECIES.loopBound(len) : 0; i < bound; i += LANES) {
            DoubleVector.fromArray(SPECIES, y, yo + i).div(vd).intoArray(y, yo + i);
        }
        for (; i < len; i++) {
            y[yo + i] /= divisor;
        }
    }

    public static void divideScalar(double[] y, int yo, double divisor, int len) {
        for (int i = 0; i < len; i++) {
            y[yo + i] /= divisor;
        }
    }

    /** Σ x[xo+i]·y[yo+i]; lane-parallel partial sums, so not bit-equal to {@link #dotScalar}. */
    public static double dot(double[] x, int xo, double[] y, int yo, int len) {
        int i = 0;
        double sum = 0;
        if (len >= SHORT) {
            DoubleVector acc = DoubleVector.zero(SPECIES);
            for (int bound = SPECIES.loopBound(len); i < bound; i += LANES) {
                acc = DoubleVector.fromArray(SPECIES, x, xo + i).fma(DoubleVector.fromArray(SPECIES, y, yo + i), acc);
            }
            sum = LaneSums.sum(acc);
        }
        for (; i < len; i++) {
            sum = Math.fma(x[xo + i], y[yo + i], sum);
        }
        return sum;
    }

    public static double dotScalar(double[] x, int xo, double[] y, int yo, int len) {
        double sum = 0;
        for (int i = 0; i < len; i++) {
            sum = Math.fma(x[xo + i], y[yo + i], sum);
        }
        return sum;
    }
}

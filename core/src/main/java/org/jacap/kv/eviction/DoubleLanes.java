package org.jacap.kv.eviction;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Double-precision loops of the eviction scorers, vectorised with a scalar twin each. The
 * element-wise kernels use one fused multiply-add per element in both the vector body and the
 * scalar tail, so every element gets bit-identical arithmetic wherever it falls: tokens with
 * identical inputs get identical scores (the fixtures' exact ties depend on it).
 */
final class DoubleLanes {
    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();

    private DoubleLanes() {
    }

    /** {@code y[yo+i] = fma(x[xo+i], a, y[yo+i])}. */
    static void axpy(double a, double[] x, int xo, double[] y, int yo, int len) {
        int i = 0;
        if (len >= LANES) {
            DoubleVector va = DoubleVector.broadcast(SPECIES, a);
            for (int bound = SPECIES.loopBound(len); i < bound; i += LANES) {
                DoubleVector.fromArray(SPECIES, x, xo + i)
                        .fma(va, DoubleVector.fromArray(SPECIES, y, yo + i))
                        .intoArray(y, yo + i);
            }
        }
        for (; i < len; i++) y[yo + i] = Math.fma(x[xo + i], a, y[yo + i]);
    }

    static void axpyScalar(double a, double[] x, int xo, double[] y, int yo, int len) {
        for (int i = 0; i < len; i++) y[yo + i] = Math.fma(x[xo + i], a, y[yo + i]);
    }

    /** {@code acc[ao+i] = fma(x[xo+i], y[yo+i], acc[ao+i])}. */
    static void multiplyAdd(double[] x, int xo, double[] y, int yo, double[] acc, int ao, int len) {
        int i = 0;
        for (int bound = SPECIES.loopBound(len); i < bound; i += LANES) {
            DoubleVector.fromArray(SPECIES, x, xo + i)
                    .fma(DoubleVector.fromArray(SPECIES, y, yo + i), DoubleVector.fromArray(SPECIES, acc, ao + i))
                    .intoArray(acc, ao + i);
        }
        for (; i < len; i++) acc[ao + i] = Math.fma(x[xo + i], y[yo + i], acc[ao + i]);
    }

    static void multiplyAddScalar(double[] x, int xo, double[] y, int yo, double[] acc, int ao, int len) {
        for (int i = 0; i < len; i++) acc[ao + i] = Math.fma(x[xo + i], y[yo + i], acc[ao + i]);
    }

    /** {@code y[yo+i] /= divisor} (a true division, as the scalar tail). */
    static void divide(double[] y, int yo, double divisor, int len) {
        int i = 0;
        DoubleVector vd = DoubleVector.broadcast(SPECIES, divisor);
        for (int bound = SPECIES.loopBound(len); i < bound; i += LANES) {
            DoubleVector.fromArray(SPECIES, y, yo + i).div(vd).intoArray(y, yo + i);
        }
        for (; i < len; i++) y[yo + i] /= divisor;
    }

    static void divideScalar(double[] y, int yo, double divisor, int len) {
        for (int i = 0; i < len; i++) y[yo + i] /= divisor;
    }

    /** Σ x[xo+i]·y[yo+i]; lane-parallel partial sums, so not bit-equal to {@link #dotScalar}. */
    static double dot(double[] x, int xo, double[] y, int yo, int len) {
        int i = 0;
        double sum = 0;
        if (len >= 2 * LANES) {
            DoubleVector acc = DoubleVector.zero(SPECIES);
            for (int bound = SPECIES.loopBound(len); i < bound; i += LANES) {
                acc = DoubleVector.fromArray(SPECIES, x, xo + i).fma(DoubleVector.fromArray(SPECIES, y, yo + i), acc);
            }
            sum = acc.reduceLanes(VectorOperators.ADD);
        }
        for (; i < len; i++) sum = Math.fma(x[xo + i], y[yo + i], sum);
        return sum;
    }

    static double dotScalar(double[] x, int xo, double[] y, int yo, int len) {
        double sum = 0;
        for (int i = 0; i < len; i++) sum = Math.fma(x[xo + i], y[yo + i], sum);
        return sum;
    }
}

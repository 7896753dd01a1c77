package org.jacap.simd;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/**
 * Lane-wise transcendental functions for the activation and softmax kernels.
 *
 * <p>{@link #exp} is a range-reduced polynomial (about 2 ulp on [-87, 88]) built from adds, FMAs
 * and an integer shift only. It is used instead of {@code lanewise(VectorOperators.EXP)}: that
 * operator is only fast when the JDK ships an intrinsic library for the platform and falls back to
 * a per-lane {@code Math.exp} loop otherwise; the polynomial is fast everywhere (see PrimitivesBench).
 */
final class VectorMath {

    private static final float LOG2E = 1.44269504088896341f;
    /** ln 2 split so that n·LN2_HI is exact for |n| ≤ 2^9 (Cody–Waite reduction). */
    private static final float LN2_HI = 0.693359375f;

    private static final float LN2_LO = -2.12194440e-4f;
    /** Adding then subtracting 1.5·2^23 rounds a float to the nearest integer (|x| < 2^22). */
    private static final float ROUND_MAGIC = 12582912f;
    /** Below this exp underflows to (almost) zero: the result is flushed to exactly 0. */
    static final float EXP_LO = -87f;
    /** Above this exp is within a factor of 2 of overflowing: the result is +Infinity. */
    static final float EXP_HI = 88f;

    // Minimax coefficients of e^r on |r| ≤ ln2/2 (the classic Cephes expf set).
    private static final float P0 = 1.9875691500e-4f;
    private static final float P1 = 1.3981999507e-3f;
    private static final float P2 = 8.3334519073e-3f;
    private static final float P3 = 4.1665795894e-2f;
    private static final float P4 = 1.6666665459e-1f;
    private static final float P5 = 5.0000001201e-1f;

    private VectorMath() {}

    /**
     * e^x per lane: exactly 0 below {@link #EXP_LO} (including -∞), +∞ above {@link #EXP_HI},
     * NaN for NaN, otherwise within about 2 ulp.
     */
    static FloatVector exp(FloatVector x) {
        VectorMask<Float> under = x.lt(EXP_LO);
        VectorMask<Float> over = x.compare(VectorOperators.GT, EXP_HI);
        FloatVector xc = x.blend(EXP_LO, under).blend(EXP_HI, over);
        // n = round(x / ln2); r = x - n·ln2 in two steps so that r stays accurate
        FloatVector n = xc.fma(LOG2E, ROUND_MAGIC).sub(ROUND_MAGIC);
        var sp = x.species();
        FloatVector r = n.fma(FloatVector.broadcast(sp, -LN2_HI), xc);
        r = n.fma(FloatVector.broadcast(sp, -LN2_LO), r);
        FloatVector p = r.fma(P0, P1);
        p = p.fma(r, FloatVector.broadcast(sp, P2));
        p = p.fma(r, FloatVector.broadcast(sp, P3));
        p = p.fma(r, FloatVector.broadcast(sp, P4));
        p = p.fma(r, FloatVector.broadcast(sp, P5));
        FloatVector r2 = r.mul(r);
        p = p.fma(r2, r).add(1f);
        // 2^n assembled in the exponent field; n ∈ [-126, 127] by the clamp above
        IntVector bits =
                ((IntVector) n.convert(VectorOperators.F2I, 0)).add(127).lanewise(VectorOperators.LSHL, 23);
        FloatVector result = p.mul(bits.reinterpretAsFloats());
        return result.blend(0f, under).blend(Float.POSITIVE_INFINITY, over);
    }
}

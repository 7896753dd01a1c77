package org.jacap.simd;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

/**
 * Half-precision on the vector lanes: 8-lane BF16 to float for the BF16 kernel, and F16 rounding
 * at any width (scalar twins: {@link HalfFloats}). F16 to float needs none: C2 turns a plain loop
 * over {@link Float#float16ToFloat} into {@code vcvtph2ps} (see {@link F16Kernel#dequantize}); the
 * Vector API has no F16 conversion, and C2 does not vectorize {@link Float#floatToFloat16} inside
 * a multiply-add loop, so the rounding is done here in bit and float operations.
 */
final class HalfVectors {
    private HalfVectors() {}

    static final int F16_MIN_NORMAL = 0x38800000; // 2^-14
    private static final int F16_MAX_BINADE = 0x47000000; // 2^15
    /** A float's exponent bits (infinity's pattern). */
    static final int FLOAT_INFINITY = 0x7F800000;

    static final int FLOAT_SIGN = 0x80000000;
    /** Added to a binade's exponent bits: 1.5·2^13 times it, {@link #roundToF16}'s step. */
    static final int STEP = (13 << 23) | 0x00400000;

    /** Eight BF16 patterns in int lanes to floats. */
    static FloatVector bf16ToFloat(IntVector b) {
        return b.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    /**
     * Each lane rounded to the nearest F16 value, ties to even, as
     * {@code Float.float16ToFloat(Float.floatToFloat16(x))}: adding and subtracting
     * {@code c = 1.5·2^(e+13)}, where 2^e is the lane's binade clamped to F16's [2^-14, 2^15],
     * leaves x rounded by the float addition to a multiple of 2^(e-10), F16's spacing there (x + c
     * stays inside c's binade for either sign, so its ulp is that spacing, and c's bit there is
     * even); below 2^-14 that is 2^-24, F16's subnormal step. The lane's sign is put back, so a
     * negative lane that rounds to zero gives −0. Results of 65536 and above (from 65520 up) become
     * infinity; NaN stays NaN. Checked against the JDK on every float (2026-12-07).
     */
    static FloatVector roundToF16(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        FloatVector c = bits.and(FLOAT_INFINITY)
                .lanewise(VectorOperators.MAX, F16_MIN_NORMAL)
                .lanewise(VectorOperators.MIN, F16_MAX_BINADE)
                .add(STEP)
                .reinterpretAsFloats();
        FloatVector r = x.add(c)
                .sub(c)
                .reinterpretAsInts()
                .lanewise(VectorOperators.BITWISE_BLEND, bits, FLOAT_SIGN) // a −0 (the subtraction gave +0)
                .reinterpretAsFloats();
        // a float comparison, false for NaN: NaN stays NaN
        return r.blend(
                bits.and(FLOAT_SIGN).or(FLOAT_INFINITY).reinterpretAsFloats(),
                r.abs().compare(VectorOperators.GE, 65536f));
    }
}

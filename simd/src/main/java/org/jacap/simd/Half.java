package org.jacap.simd;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/** IEEE half (F16) and bfloat16 (BF16) conversions, scalar and 8-lane vector. */
public final class Half {
    private Half() {}

    /** F16 bits to float (exact; subnormals and infinities preserved, NaNs quieted with their payload). */
    public static float f16ToFloat(short h) {
        return Float.float16ToFloat(h);
    }

    /** Float to F16 bits, round to nearest even (what F16C's vcvtps2ph and ggml do). */
    public static short floatToF16(float f) {
        return Float.floatToFloat16(f);
    }

    /** BF16 bits to float: the top half of a float's bits. */
    public static float bf16ToFloat(short b) {
        return Float.intBitsToFloat(b << 16);
    }

    /** Float to BF16 bits as ggml rounds: nearest even; NaN stays NaN (quiet bit set). */
    public static short floatToBf16(float f) {
        int u = Float.floatToRawIntBits(f);
        if ((u & 0x7fffffff) > 0x7f800000) {
            return (short) ((u >>> 16) | 64);
        }
        return (short) ((u + (0x7fff + ((u >>> 16) & 1))) >>> 16);
    }

    /** f16 rounding of a float: the nearest F16 value, as a float. */
    public static float roundToF16(float f) {
        return Float.float16ToFloat(Float.floatToFloat16(f));
    }

    /** bf16 rounding of a float (ggml's rule), as a float. */
    public static float roundToBf16(float f) {
        return bf16ToFloat(floatToBf16(f));
    }

    /**
     * Eight F16 values, given as sign-extended or zero-extended 16-bit patterns in int lanes, to
     * floats. Placing the 15 magnitude bits 13 places up makes a float whose exponent is off by
     * 2^112 (normals and subnormals alike), so one multiply fixes it exactly; exponent 31
     * (infinity/NaN) is patched to 255 and NaNs get the quiet bit.
     */
    static FloatVector f16ToFloat(IntVector h) {
        IntVector mag = h.and(0x7FFF);
        IntVector shifted = mag.lanewise(VectorOperators.LSHL, 13);
        IntVector finite = shifted.reinterpretAsFloats().mul(0x1p112f).reinterpretAsInts();
        VectorMask<Integer> special = mag.compare(VectorOperators.GE, 0x7C00);
        VectorMask<Integer> nan = mag.compare(VectorOperators.GT, 0x7C00);
        // NaNs come out quiet, as from F16C's vcvtph2ps and Float.float16ToFloat
        IntVector bits = finite.blend(shifted.or(0x7F800000), special).blend(shifted.or(0x7FC00000), nan);
        return bits.or(h.and(0x8000).lanewise(VectorOperators.LSHL, 16)).reinterpretAsFloats();
    }

    /** Eight BF16 patterns in int lanes to floats. */
    static FloatVector bf16ToFloat(IntVector b) {
        return b.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }
}

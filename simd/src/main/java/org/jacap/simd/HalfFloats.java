package org.jacap.simd;

import java.util.Objects;

/**
 * IEEE half (F16) and bfloat16 (BF16) conversions, all rounding to nearest, ties to even. Used to
 * read F16/BF16 tensors and to mimic llama.cpp, which converts activations to the weight's type
 * before some dot products ({@link #roundToF16(float[], int, int)}).
 *
 * <pre>
 *   F16 : sign(1) exponent(5)  mantissa(10)   max 65504
 *   BF16: sign(1) exponent(8)  mantissa(7)    = the top 16 bits of a float
 * </pre>
 */
public final class HalfFloats {

    private HalfFloats() {}

    /** F16 bits → float (exact). */
    public static float f16ToFloat(short bits) {
        return Float.float16ToFloat(bits);
    }

    /** float → F16 bits, round to nearest even; overflow gives ±∞, NaN stays NaN. */
    public static short floatToF16(float x) {
        return Float.floatToFloat16(x);
    }

    /** x rounded to the nearest F16 value, returned as a float. */
    public static float roundToF16(float x) {
        return Float.float16ToFloat(Float.floatToFloat16(x));
    }

    /** BF16 bits → float (exact): the bits are the top half of the float. */
    public static float bf16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /**
     * float → BF16 bits, round to nearest even (as ggml's {@code fp32_to_bf16}): subnormals are
     * kept, values beyond the largest BF16 round to ±∞, NaN becomes a quiet NaN of the same sign.
     */
    public static short floatToBf16(float x) {
        int u = Float.floatToRawIntBits(x);
        if ((u & 0x7FFF_FFFF) > 0x7F80_0000) {
            return (short) ((u >>> 16) | 0x40);
        }
        return (short) ((u + 0x7FFF + ((u >>> 16) & 1)) >>> 16);
    }

    /** x rounded to the nearest BF16 value, returned as a float. */
    public static float roundToBf16(float x) {
        return bf16ToFloat(floatToBf16(x));
    }

    /** Rounds x[off, off+n) to F16 precision in place. */
    public static void roundToF16(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        for (int i = off; i < off + n; i++) {
            x[i] = Float.float16ToFloat(Float.floatToFloat16(x[i]));
        }
    }

    /** Rounds x[off, off+n) to BF16 precision in place. */
    public static void roundToBf16(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        for (int i = off; i < off + n; i++) {
            x[i] = roundToBf16(x[i]);
        }
    }
}

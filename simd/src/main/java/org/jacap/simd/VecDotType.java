package org.jacap.simd;

/**
 * The form llama.cpp's CPU backend converts activations to before a product with a weight
 * matrix (ggml's {@code vec_dot_type}). {@link #round} applies that conversion and returns the
 * activations as floats on the converted grid, so a float kernel computes the same products as
 * an integer kernel up to f32 summation order.
 */
public enum VecDotType {
    /** Plain f32. */
    F32(1),
    /** Rounded to F16 (nearest even). */
    F16(1),
    /** Rounded to BF16 (ggml's nearest-even rule). */
    BF16(1),
    /** Blocks of 32: f16 scale {@code d = amax/127}, int8 {@code q = rint(x*127/amax)}. */
    Q8_0(32),
    /**
     * As Q8_0 plus the f16 block sum {@code s = f16(d·Σq)} (d before its f16 rounding) that Q4_1/Q5_1
     * multiply with their block minimum. On the float grid the offset term comes out as
     * {@code f16(d)·Σq} instead; {@link #q8_1SumCorrections} gives the difference per block, which
     * {@link MatMul} adds back so the products are llama.cpp's.
     */
    Q8_1(32),
    /** Blocks of 256: f32 scale {@code d = max/-127} (sign of the largest magnitude), {@code q = rint(x/d)}. */
    Q8_K(256);

    private final int blockSize;

    VecDotType(int blockSize) {
        this.blockSize = blockSize;
    }

    /** Elements per block of the converted activations. */
    public int blockSize() {
        return blockSize;
    }

    /**
     * Converts {@code n} activations {@code src[srcOff..]} to this grid into {@code dst[dstOff..]}
     * ({@code src == dst} allowed). {@code n} must be a multiple of {@link #blockSize()}.
     */
    public void round(float[] src, int srcOff, float[] dst, int dstOff, int n) {
        if (n % blockSize != 0) {
            throw new IllegalArgumentException(
                    this + " rounds whole blocks of " + blockSize + ", got " + n + " values");
        }
        switch (this) {
            case F32 -> System.arraycopy(src, srcOff, dst, dstOff, n);
            case F16 -> {
                for (int i = 0; i < n; i++) {
                    dst[dstOff + i] = HalfFloats.roundToF16(src[srcOff + i]);
                }
            }
            case BF16 -> {
                for (int i = 0; i < n; i++) {
                    dst[dstOff + i] = HalfFloats.roundToBf16(src[srcOff + i]);
                }
            }
            case Q8_0, Q8_1 -> {
                for (int b = 0; b < n; b += 32) {
                    roundQ8_0Block(src, srcOff + b, dst, dstOff + b);
                }
            }
            case Q8_K -> {
                for (int b = 0; b < n; b += 256) {
                    roundQ8KBlock(src, srcOff + b, dst, dstOff + b);
                }
            }
        }
    }

    /**
     * For each block of 32 of {@code src[off, off+n)}: {@code f16(d·Σq) − f16(d)·Σq}, the Q8_1 block
     * sum llama.cpp uses minus the sum of the block on the float grid (exact in float: an 11-bit
     * scale times a sum below 2^12). Written to {@code out[outOff + b]}.
     */
    public static void q8_1SumCorrections(float[] src, int off, int n, float[] out, int outOff) {
        for (int b = 0; b < n / 32; b++) {
            int s = off + 32 * b;
            float amax = absMax32(src, s);
            float id = amax != 0f ? 127f / amax : 0f;
            int sum = 0;
            for (int j = 0; j < 32; j++) {
                sum += (int) Math.rint(src[s + j] * id);
            }
            out[outOff + b] = q8_1BlockSum(amax, sum) - HalfFloats.roundToF16(amax / 127f) * sum;
        }
    }

    /** llama.cpp's Q8_1 block sum {@code s = f16(d·Σq)} from the block's max |x| and Σq (d = amax/127, unrounded). */
    static float q8_1BlockSum(float amax, int sumOfQ) {
        return HalfFloats.roundToF16(amax / 127f * sumOfQ);
    }

    /** max |x| over {@code src[s, s+32)}. */
    static float absMax32(float[] src, int s) {
        float amax = 0f;
        for (int j = 0; j < 32; j++) {
            amax = Math.max(amax, Math.abs(src[s + j]));
        }
        return amax;
    }

    /** One Q8_0 block on the float grid: the integer values times their scale. */
    private static void roundQ8_0Block(float[] src, int s, float[] dst, int t) {
        float d = quantizeQ8_0Block(src, s, dst, t);
        for (int j = 0; j < 32; j++) {
            dst[t + j] *= d;
        }
    }

    /** One Q8_K block on the float grid: the integer values times their scale. */
    private static void roundQ8KBlock(float[] src, int s, float[] dst, int t) {
        float d = quantizeQ8KBlock(src, s, dst, t);
        for (int j = 0; j < 256; j++) {
            dst[t + j] *= d;
        }
    }

    /**
     * The Q8_0 rule, as ggml's AVX2 {@code quantize_row_q8_0} (max |x|, f16 scale, round half to
     * even): writes the int8 values of {@code src[s .. s+32)} to {@code v[t ..]} as floats
     * ({@code src == v} allowed) and returns the scale. The one place the rule is written:
     * {@link #round}, {@link QuantizedActivations} and so the integer kernels all use it.
     */
    static float quantizeQ8_0Block(float[] src, int s, float[] v, int t) {
        float amax = absMax32(src, s);
        float id = amax != 0f ? 127f / amax : 0f;
        for (int j = 0; j < 32; j++) {
            v[t + j] = (float) Math.rint(src[s + j] * id);
        }
        return HalfFloats.roundToF16(amax / 127f);
    }

    /**
     * The Q8_K rule, as ggml's {@code quantize_row_q8_K_ref} (the scale follows the signed value of
     * largest magnitude): writes the int8 values of {@code src[s .. s+256)} to {@code v[t ..]} as
     * floats ({@code src == v} allowed) and returns the scale, 0 for an all-zero block (values 0).
     * Used by {@link #round}, {@link QuantizedActivations} and {@link Quantize} (Q8_K weights).
     */
    static float quantizeQ8KBlock(float[] src, int s, float[] v, int t) {
        float amax = 0f;
        float max = 0f;
        for (int j = 0; j < 256; j++) {
            float ax = Math.abs(src[s + j]);
            if (ax > amax) {
                amax = ax;
                max = src[s + j];
            }
        }
        if (amax == 0f) {
            java.util.Arrays.fill(v, t, t + 256, 0f);
            return 0f;
        }
        float iscale = -127f / max;
        for (int j = 0; j < 256; j++) {
            v[t + j] = Math.min(127, Quants.nearestInt(iscale * src[s + j]));
        }
        return 1f / iscale;
    }
}

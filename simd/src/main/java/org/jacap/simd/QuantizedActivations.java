package org.jacap.simd;

import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.S128;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/**
 * Activations quantized for the integer matrix-vector kernels ({@link TypeKernel#dotQ8}): the
 * int8 values widened to shorts (so a 16-bit multiply needs no widening per row), one scale per
 * block, and the sum of each 32 values (the K-quants' minimum terms need {@code Σ x} per
 * sub-block). Values and scales come from {@link VecDotType}'s block rules, as {@link VecDotType#round}'s do:
 * {@code q[i] * d[i / blockSize]} equals what it gives, bit for bit, so an integer kernel computes
 * the same products as the float path of {@link Precision#NATIVE}; only the float sums' order
 * differs.
 *
 * <p>Computed once per matrix-vector product and shared by all threads (read-only while they
 * run). Grows to the longest vector seen; does not allocate after that.
 */
public final class QuantizedActivations {
    short[] q = new short[0];
    float[] d = new float[0];
    int[] sums = new int[0];
    /** Q8_1 only: llama.cpp's block sum {@code f16(d·Σq)} (d before its f16 rounding), what Q4_1/Q5_1 minimums multiply. */
    float[] blockSums = new float[0];
    /** The integer values as floats, as {@link VecDotType}'s block rules write them. */
    private float[] values = new float[0];

    VecDotType type;
    int length;

    /** Quantizes {@code x[off .. off+n)} to {@code type}, Q8_0, Q8_1 or Q8_K ({@code n} a multiple of its block). */
    void quantize(VecDotType type, float[] x, int off, int n) {
        prepare(type, n);
        if (type == VecDotType.Q8_K) {
            for (int b = 0; b < n / 256; b++) {
                quantizeQ8KBlock(x, off + 256 * b, b);
            }
            return;
        }
        for (int b = 0; b < n / 32; b++) {
            quantizeQ8Block(x, off + 32 * b, b, type == VecDotType.Q8_1);
        }
    }

    /** The scalar twin of {@link #quantize}: {@link VecDotType}'s block rules, value by value. */
    void quantizeScalar(VecDotType type, float[] x, int off, int n) {
        prepare(type, n);
        scalarBlocks(type, x, off, n);
    }

    private void prepare(VecDotType type, int n) {
        if (type != VecDotType.Q8_0 && type != VecDotType.Q8_1 && type != VecDotType.Q8_K) {
            throw new IllegalArgumentException("integer kernels take Q8_0, Q8_1 or Q8_K activations, not " + type);
        }
        int bs = type.blockSize();
        if (n % bs != 0) {
            throw new IllegalArgumentException(
                    type + " activations come in blocks of " + bs + ", got " + n + " values");
        }
        if (q.length < n) {
            q = new short[n];
            d = new float[n / 32];
            sums = new int[n / 32];
            blockSums = new float[n / 32];
            values = new float[n];
        }
        this.type = type;
        this.length = n;
    }

    /** The rounding constant 1.5·2^23: adding it rounds a float below 2^22 to an integer, half to even, as {@link Math#rint}. */
    private static final float RINT = 12582912f;

    /**
     * One Q8_0/Q8_1 block in four 8-lane vectors, bit for bit what {@link #quantizeScalar} gives:
     * the same max |x|, the same {@code x · (127 / amax)} products, {@code rint} by the
     * 1.5·2^23 addition (exact: |x · id| ≤ 127 ≪ 2^22, NaN stays NaN and casts to 0), integer sums.
     * Runs once per matrix-vector product on one thread, so its cost is paid while the others wait.
     */
    private void quantizeQ8Block(float[] x, int s, int b, boolean withBlockSum) {
        FloatVector v0 = FloatVector.fromArray(F256, x, s);
        FloatVector v1 = FloatVector.fromArray(F256, x, s + 8);
        FloatVector v2 = FloatVector.fromArray(F256, x, s + 16);
        FloatVector v3 = FloatVector.fromArray(F256, x, s + 24);
        float amax = absMax(v0, v1, v2, v3);
        float id = amax != 0f ? 127f / amax : 0f;
        // amax below 127 / Float.MAX_VALUE: the products overflow, so the scalar rules decide
        if (id == Float.POSITIVE_INFINITY) {
            scalarBlock32(x, s, b, withBlockSum);
            return;
        }
        IntVector i0 = rounded(v0, id);
        IntVector i1 = rounded(v1, id);
        IntVector i2 = rounded(v2, id);
        IntVector i3 = rounded(v3, id);
        ((ShortVector) i0.convertShape(VectorOperators.I2S, S128, 0)).intoArray(q, 32 * b);
        ((ShortVector) i1.convertShape(VectorOperators.I2S, S128, 0)).intoArray(q, 32 * b + 8);
        ((ShortVector) i2.convertShape(VectorOperators.I2S, S128, 0)).intoArray(q, 32 * b + 16);
        ((ShortVector) i3.convertShape(VectorOperators.I2S, S128, 0)).intoArray(q, 32 * b + 24);
        int sum = i0.add(i1).add(i2.add(i3)).reduceLanes(VectorOperators.ADD);
        d[b] = HalfFloats.roundToF16(amax / 127f);
        sums[b] = sum;
        if (withBlockSum) {
            blockSums[b] = VecDotType.q8_1BlockSum(amax, sum);
        }
    }

    /**
     * One Q8_K block of 256 on 8-lane vectors, bit for bit what {@link #quantizeScalar} gives: the
     * same signed value of largest magnitude (its first occurrence, as the scalar loop's strict
     * {@code >} keeps), the same {@code −127 / max} and products, {@code rint} by the 1.5·2^23
     * addition (|products| ≤ 127), the same clamp at 127, integer sums per 32; a block that
     * {@link #q8kScale} leaves to the scalar rule goes by it.
     */
    private void quantizeQ8KBlock(float[] x, int s, int b) {
        float iscale = q8kScale(x, s);
        if (Float.isNaN(iscale)) {
            scalarBlockQ8K(x, s, b);
            return;
        }
        for (int g = 0; g < 8; g++) {
            IntVector sum = IntVector.zero(Layouts.I256);
            for (int j = 0; j < 32; j += 8) {
                IntVector i = rounded(FloatVector.fromArray(F256, x, s + 32 * g + j), iscale)
                        .min(127);
                ((ShortVector) i.convertShape(VectorOperators.I2S, S128, 0)).intoArray(q, 256 * b + 32 * g + j);
                sum = sum.add(i);
            }
            sums[8 * b + g] = sum.reduceLanes(VectorOperators.ADD);
        }
        d[b] = 1f / iscale;
    }

    /**
     * Q8_K's {@code −127 / max} for the block of 256 at {@code x[s]} on vectors ({@code max} the
     * first value of largest magnitude, as the scalar loop's strict {@code >} keeps it), or NaN
     * where the scalar rule must decide: a maximum of 0, not finite (a NaN: a vector max would
     * propagate it where the scalar loop skips it) or subnormal (the scale overflows).
     */
    private static float q8kScale(float[] x, int s) {
        FloatVector m = FloatVector.fromArray(F256, x, s).abs();
        for (int j = 8; j < 256; j += 8) {
            m = m.max(FloatVector.fromArray(F256, x, s + j).abs());
        }
        float amax = m.reduceLanes(VectorOperators.MAX);
        if (!(amax > 0f && amax < Float.POSITIVE_INFINITY)) {
            return Float.NaN;
        }
        for (int j = 0; j < 256; j += 8) {
            VectorMask<Float> hit = FloatVector.fromArray(F256, x, s + j).abs().compare(VectorOperators.EQ, amax);
            if (hit.anyTrue()) {
                float iscale = -127f / x[s + j + hit.firstTrue()];
                return Float.isInfinite(iscale) ? Float.NaN : iscale;
            }
        }
        throw new AssertionError("no value reaches the block's maximum");
    }

    /**
     * {@link VecDotType#round} to Q8_K on vectors, bit for bit: per block of 256 the same scale
     * ({@link #q8kScale}), the same rounded and clamped values, times the same {@code 1 / iscale};
     * a block that {@link #q8kScale} leaves to the scalar rule goes by it. The prefill's float
     * tile rounds the inputs of Q6_K matrices this way.
     */
    static void roundQ8K(float[] src, int srcOff, float[] dst, int dstOff, int n) {
        if (n % 256 != 0) {
            throw new IllegalArgumentException("Q8_K rounds whole blocks of 256, got " + n + " values");
        }
        for (int b = 0; b < n; b += 256) {
            int s = srcOff + b;
            float iscale = q8kScale(src, s);
            if (Float.isNaN(iscale)) {
                VecDotType.Q8_K.round(src, s, dst, dstOff + b, 256);
                continue;
            }
            float d = 1f / iscale;
            for (int j = 0; j < 256; j += 8) {
                ((FloatVector) rounded(FloatVector.fromArray(F256, src, s + j), iscale)
                                .min(127)
                                .convert(VectorOperators.I2F, 0))
                        .mul(d)
                        .intoArray(dst, dstOff + b + j);
            }
        }
    }

    /**
     * {@link VecDotType#round} to Q8_0/Q8_1 on vectors, bit for bit: per block of 32 the same max
     * |x| (a max is exact in any order), the same {@code x · (127 / amax)} products, {@code rint}
     * by the 1.5·2^23 addition with the sign kept (exact below 2^22; ±Inf and NaN pass through as
     * {@link Math#rint}'s do), times the same f16 scale. The prefill rounds every matrix input this way.
     */
    static void roundQ8_0(float[] src, int srcOff, float[] dst, int dstOff, int n) {
        if (n % 32 != 0) {
            throw new IllegalArgumentException("Q8_0 rounds whole blocks of 32, got " + n + " values");
        }
        for (int b = 0; b < n; b += 32) {
            int s = srcOff + b;
            float amax = absMax(
                    FloatVector.fromArray(F256, src, s),
                    FloatVector.fromArray(F256, src, s + 8),
                    FloatVector.fromArray(F256, src, s + 16),
                    FloatVector.fromArray(F256, src, s + 24));
            float id = amax != 0f ? 127f / amax : 0f;
            float d = HalfFloats.roundToF16(amax / 127f);
            for (int q = 0; q < 32; q += 8) { // the block again, from L1
                signedRint(FloatVector.fromArray(F256, src, s + q).mul(id))
                        .mul(d)
                        .intoArray(dst, dstOff + b + q);
            }
        }
    }

    /**
     * {@link Math#rint} of each lane, the sign included: the 1.5·2^23 addition on |x| (half to even
     * is symmetric), then x's sign bit, so that rint(-0.4) is -0.0 as the scalar rule gives.
     */
    private static FloatVector signedRint(FloatVector x) {
        IntVector magnitude = x.abs().add(RINT).sub(RINT).reinterpretAsInts();
        IntVector sign = x.reinterpretAsInts().and(Integer.MIN_VALUE);
        return magnitude.or(sign).reinterpretAsFloats();
    }

    /** max |x| over a block's four vectors (exact in any order). */
    private static float absMax(FloatVector v0, FloatVector v1, FloatVector v2, FloatVector v3) {
        return v0.abs().max(v1.abs()).max(v2.abs().max(v3.abs())).reduceLanes(VectorOperators.MAX);
    }

    private static IntVector rounded(FloatVector v, float id) {
        return (IntVector) v.mul(id).add(RINT).sub(RINT).convert(VectorOperators.F2I, 0);
    }

    /** One Q8_0/Q8_1 block by {@link VecDotType}'s scalar rules. */
    private void scalarBlock32(float[] x, int s, int b, boolean withBlockSum) {
        d[b] = VecDotType.quantizeQ8_0Block(x, s, values, 32 * b);
        sums[b] = widened(b);
        if (withBlockSum) {
            blockSums[b] = VecDotType.q8_1BlockSum(VecDotType.absMax32(x, s), sums[b]);
        }
    }

    private void scalarBlocks(VecDotType type, float[] x, int off, int n) {
        if (type != VecDotType.Q8_K) { // Q8_1 has Q8_0's values, and its block sums
            for (int b = 0; b < n / 32; b++) {
                scalarBlock32(x, off + 32 * b, b, type == VecDotType.Q8_1);
            }
            return;
        }
        for (int b = 0; b < n / 256; b++) {
            scalarBlockQ8K(x, off + 256 * b, b);
        }
    }

    /** One Q8_K block by {@link VecDotType}'s scalar rule, and its eight sums per 32. */
    private void scalarBlockQ8K(float[] x, int s, int b) {
        d[b] = VecDotType.quantizeQ8KBlock(x, s, values, 256 * b);
        for (int g = 8 * b; g < 8 * b + 8; g++) {
            sums[g] = widened(g);
        }
    }

    /** Group {@code g}'s 32 rounded values into {@link #q}, returning their sum. */
    private int widened(int g) {
        int sum = 0;
        for (int i = 32 * g; i < 32 * g + 32; i++) {
            q[i] = (short) values[i];
            sum += q[i];
        }
        return sum;
    }
}

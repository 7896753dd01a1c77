package org.jacap.simd;

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
        for (int b = 0; b < n / bs; b++) {
            d[b] = type != VecDotType.Q8_K // Q8_1 has Q8_0's values; its sums are the ones below
                    ? VecDotType.quantizeQ8_0Block(x, off + bs * b, values, bs * b)
                    : VecDotType.quantizeQ8KBlock(x, off + bs * b, values, bs * b);
        }
        for (int g = 0; g < n / 32; g++) {
            int sum = 0;
            for (int i = 32 * g; i < 32 * g + 32; i++) {
                q[i] = (short) values[i];
                sum += q[i];
            }
            sums[g] = sum;
        }
        if (type == VecDotType.Q8_1) {
            for (int g = 0; g < n / 32; g++) {
                blockSums[g] = VecDotType.q8_1BlockSum(VecDotType.absMax32(x, off + 32 * g), sums[g]);
            }
        }
        this.type = type;
        this.length = n;
    }
}

package org.jacap.simd;

/**
 * Activations quantized to Q8_0 blocks for the integer matrix-vector kernels
 * ({@link TypeKernel#dotQ8}): the int8 values widened to shorts (so a 16-bit multiply needs no
 * widening per row) and one scale per block of 32. Values and scales are those of
 * {@link VecDotType#Q8_0}: {@code q[i] * d[i/32]} equals what {@link VecDotType#round} gives,
 * bit for bit, so an integer kernel computes the same products as the float path of
 * {@link Precision#NATIVE}; only the order of the float sums differs.
 *
 * <p>Computed once per matrix-vector product and shared by all threads (read-only while they
 * run). Grows to the longest vector seen; does not allocate after that.
 */
final class QuantizedActivations {
    short[] q = new short[0];
    float[] d = new float[0];
    int length;

    /** Quantizes {@code x[off .. off+n)} ({@code n} a multiple of 32), as ggml's {@code quantize_row_q8_0}. */
    void quantizeQ8_0(float[] x, int off, int n) {
        if (n % 32 != 0) {
            throw new IllegalArgumentException("Q8_0 activations come in blocks of 32, got " + n + " values");
        }
        if (q.length < n) {
            q = new short[n];
            d = new float[n / 32];
        }
        for (int b = 0; b < n / 32; b++) {
            int s = off + 32 * b;
            float amax = 0f;
            for (int j = 0; j < 32; j++) {
                amax = Math.max(amax, Math.abs(x[s + j]));
            }
            float id = amax != 0f ? 127f / amax : 0f;
            d[b] = HalfFloats.roundToF16(amax / 127f);
            for (int j = 0; j < 32; j++) {
                q[32 * b + j] = (short) Math.rint(x[s + j] * id);
            }
        }
        length = n;
    }
}

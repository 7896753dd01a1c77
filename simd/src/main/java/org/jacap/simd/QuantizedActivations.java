package org.jacap.simd;

/**
 * Activations quantized for the integer matrix-vector kernels ({@link TypeKernel#dotQ8}): the
 * int8 values widened to shorts (so a 16-bit multiply needs no widening per row), one scale per
 * block, and for {@link VecDotType#Q8_K} the sum of each 32 values (the K-quants' minimum terms
 * need {@code Σ x} per sub-block). Values and scales follow {@link VecDotType#round}:
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
    VecDotType type;
    int length;

    /** Quantizes {@code x[off .. off+n)} to {@code type}, Q8_0 or Q8_K ({@code n} a multiple of its block). */
    void quantize(VecDotType type, float[] x, int off, int n) {
        if (type != VecDotType.Q8_0 && type != VecDotType.Q8_K) {
            throw new IllegalArgumentException("integer kernels take Q8_0 or Q8_K activations, not " + type);
        }
        if (n % type.blockSize() != 0) {
            throw new IllegalArgumentException(type + " activations come in blocks of " + type.blockSize() + ", got " + n + " values");
        }
        if (q.length < n) {
            q = new short[n];
            d = new float[n / 32];
            sums = new int[n / 32];
        }
        if (type == VecDotType.Q8_0) {
            for (int b = 0; b < n / 32; b++) {
                quantizeQ8_0Block(x, off + 32 * b, b);
            }
        } else {
            for (int b = 0; b < n / 256; b++) {
                quantizeQ8KBlock(x, off + 256 * b, b);
            }
        }
        this.type = type;
        this.length = n;
    }

    /** As ggml's {@code quantize_row_q8_0}: f16 scale {@code amax/127}, round half to even. */
    private void quantizeQ8_0Block(float[] x, int s, int b) {
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

    /** As ggml's {@code quantize_row_q8_K_ref}: the scale follows the signed value of largest magnitude. */
    private void quantizeQ8KBlock(float[] x, int s, int b) {
        float amax = 0f;
        float max = 0f;
        for (int j = 0; j < 256; j++) {
            float ax = Math.abs(x[s + j]);
            if (ax > amax) {
                amax = ax;
                max = x[s + j];
            }
        }
        int t = 256 * b;
        if (amax == 0f) {
            d[b] = 0f;
            java.util.Arrays.fill(q, t, t + 256, (short) 0);
            java.util.Arrays.fill(sums, 8 * b, 8 * b + 8, 0);
            return;
        }
        float iscale = -127f / max;
        d[b] = 1f / iscale;
        for (int g = 0; g < 8; g++) {
            int sum = 0;
            for (int j = 32 * g; j < 32 * g + 32; j++) {
                int v = Math.min(127, Quants.nearestInt(iscale * x[s + j]));
                q[t + j] = (short) v;
                sum += v;
            }
            sums[8 * b + g] = sum;
        }
    }
}

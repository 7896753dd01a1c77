package org.jacap.simd;

import java.util.Objects;

/**
 * One query head's attention computed as llama.cpp's CPU flash attention does for small batches
 * (fewer than {@link #LLAMA_TILE_QUERIES} query rows: decoding and short prompts) with its default
 * F16 cache: the query is rounded to F16, the keys are visited in order with an online softmax
 * (running maximum M and sum S in float), and the value accumulator is an F16 vector: every rescale
 * and every fused multiply-add is rounded back to F16. That accumulator is the largest difference
 * between llama.cpp's decoding and exact attention (log-probs ~0.1 nats apart on SmolLM2), so the
 * native precision path reproduces it; larger batches use llama.cpp's F32 tiles, which the plain
 * {@link Attention} kernels match. Keys and values must already be F16 values (the cache rounds them).
 */
public final class HalfOnlineAttention {
    private HalfOnlineAttention() {}

    /** llama.cpp's {@code GGML_FA_TILE_Q}: batches with at least this many queries take its F32 tiled path. */
    public static final int LLAMA_TILE_QUERIES = 64;

    /**
     * out[outOff, +dv) = softmax(scale·q·Kᵀ)·V over the {@code n} rows of keys (row j at
     * {@code keyOff + j·dk}) and values (at {@code valOff + j·dv}); {@code scratch} needs dk + dv floats.
     */
    public static void attend(
            float[] q,
            int qOff,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            int dk,
            int dv,
            float scale,
            float[] scratch,
            float[] out,
            int outOff) {
        Objects.checkFromIndexSize(qOff, dk, q.length);
        Objects.checkFromIndexSize(keyOff, (long) n * dk, keys.length);
        Objects.checkFromIndexSize(valOff, (long) n * dv, values.length);
        Objects.checkFromIndexSize(outOff, dv, out.length);
        Objects.checkFromIndexSize(0, dk + dv, scratch.length);
        int qh = 0;
        int acc = dk;
        for (int c = 0; c < dk; c++) {
            scratch[qh + c] = HalfFloats.roundToF16(q[qOff + c]);
        }
        java.util.Arrays.fill(scratch, acc, acc + dv, 0f);
        float m = Float.NEGATIVE_INFINITY;
        float s = 0f;
        for (int j = 0; j < n; j++) {
            // F16 x F16 products are exact in float, so only the summation order is ours.
            float kq = VectorOps.dot(scratch, qh, keys, keyOff + j * dk, dk) * scale;
            float ms = 1f;
            float vs = 1f;
            if (kq > m) {
                float old = m;
                m = kq;
                ms = (float) Math.exp(old - m);
                for (int c = 0; c < dv; c++) {
                    scratch[acc + c] = HalfFloats.roundToF16(scratch[acc + c] * ms);
                }
            } else {
                vs = (float) Math.exp(kq - m);
            }
            int v = valOff + j * dv;
            for (int c = 0; c < dv; c++) {
                scratch[acc + c] = HalfFloats.roundToF16(Math.fma(values[v + c], vs, scratch[acc + c]));
            }
            s = s * ms + vs;
        }
        float inv = s == 0f ? 0f : 1f / s;
        for (int c = 0; c < dv; c++) {
            out[outOff + c] = scratch[acc + c] * inv;
        }
    }
}

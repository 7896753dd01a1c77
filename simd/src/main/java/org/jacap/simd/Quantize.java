package org.jacap.simd;

import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.FLOAT;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;
import org.jacap.gguf.GgmlType;

/**
 * Float to stored bytes, following ggml's reference quantizers ({@code quantize_row_*_ref},
 * the ones llama-quantize uses without an importance matrix) operation for operation in f32, so
 * the output is byte-identical to ggml's. Block layouts are drawn next to each type's kernel.
 * Supported: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, Q8_K.
 */
public final class Quantize {
    private Quantize() {}

    private static final float GROUP_MAX_EPS = 1e-15f;

    /** True when {@link #row} can write {@code type}. */
    public static boolean supports(GgmlType type) {
        return switch (type) {
            case F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, Q8_K -> true;
            default -> false;
        };
    }

    /**
     * Quantizes {@code n} floats {@code src[srcOff..]} (a whole number of blocks) into
     * {@code type}'s layout at byte {@code dstOff} of {@code dst}.
     */
    public static void row(GgmlType type, float[] src, int srcOff, int n, MemorySegment dst, long dstOff) {
        if (!supports(type)) {
            throw new UnsupportedTensorTypeException(type, "no quantizer for it in org.jacap.simd");
        }
        if (n % type.blockSize() != 0) {
            throw new IllegalArgumentException(type + " quantizes whole blocks of " + type.blockSize() + ", got " + n);
        }
        Objects.checkFromIndexSize(srcOff, n, src.length);
        Objects.checkFromIndexSize(dstOff, type.bytesFor(n), dst.byteSize());
        int bs = type.blockSize();
        long bpb = type.bytesPerBlock();
        switch (type) {
            case F32 -> {
                for (int i = 0; i < n; i++) {
                    dst.set(FLOAT, dstOff + 4L * i, src[srcOff + i]);
                }
            }
            case F16 -> {
                for (int i = 0; i < n; i++) {
                    dst.set(SHORT, dstOff + 2L * i, HalfFloats.floatToF16(src[srcOff + i]));
                }
            }
            case BF16 -> {
                for (int i = 0; i < n; i++) {
                    dst.set(SHORT, dstOff + 2L * i, HalfFloats.floatToBf16(src[srcOff + i]));
                }
            }
            default -> {
                for (int b = 0; b < n / bs; b++) {
                    int s = srcOff + b * bs;
                    long o = dstOff + b * bpb;
                    switch (type) {
                        case Q8_0 -> q8_0(src, s, dst, o);
                        case Q4_0 -> q4_0(src, s, dst, o);
                        case Q4_1 -> q4_1(src, s, dst, o);
                        case Q5_0 -> q5_0(src, s, dst, o);
                        case Q5_1 -> q5_1(src, s, dst, o);
                        case Q4_K -> q45K(src, s, dst, o, 15);
                        case Q5_K -> q45K(src, s, dst, o, 31);
                        case Q6_K -> q6K(src, s, dst, o);
                        case Q8_K -> q8K(src, s, dst, o);
                        default -> throw new AssertionError(type);
                    }
                }
            }
        }
    }

    /** The whole array as {@code type}'s bytes. */
    public static byte[] toBytes(GgmlType type, float[] src) {
        long size = type.bytesFor(src.length);
        if (size < 0) {
            throw new IllegalArgumentException(
                    type + " quantizes whole blocks of " + type.blockSize() + ", got " + src.length);
        }
        byte[] out = new byte[Math.toIntExact(size)];
        row(type, src, 0, src.length, MemorySegment.ofArray(out), 0);
        return out;
    }

    // ---- 32-element blocks -------------------------------------------------------------------

    private static void q8_0(float[] x, int s, MemorySegment y, long o) {
        float amax = 0f;
        for (int j = 0; j < 32; j++) {
            amax = Math.max(amax, Math.abs(x[s + j]));
        }
        float d = amax / 127;
        float id = d != 0f ? 1.0f / d : 0.0f;
        y.set(SHORT, o, HalfFloats.floatToF16(d));
        for (int j = 0; j < 32; j++) {
            y.set(BYTE, o + 2 + j, (byte) Quants.roundAway(x[s + j] * id));
        }
    }

    /** The value of largest magnitude (first one on ties), as ggml's Q4_0/Q5_0 pick it. */
    private static float signedMax(float[] x, int s, int n) {
        float amax = 0f;
        float max = 0f;
        for (int j = 0; j < n; j++) {
            float v = x[s + j];
            if (amax < Math.abs(v)) {
                amax = Math.abs(v);
                max = v;
            }
        }
        return max;
    }

    private static void q4_0(float[] x, int s, MemorySegment y, long o) {
        float d = signedMax(x, s, 32) / -8;
        float id = d != 0f ? 1.0f / d : 0.0f;
        y.set(SHORT, o, HalfFloats.floatToF16(d));
        for (int j = 0; j < 16; j++) {
            int q0 = Math.min(15, (byte) (int) (x[s + j] * id + 8.5f));
            int q1 = Math.min(15, (byte) (int) (x[s + 16 + j] * id + 8.5f));
            y.set(BYTE, o + 2 + j, (byte) (q0 | q1 << 4));
        }
    }

    private static void q4_1(float[] x, int s, MemorySegment y, long o) {
        float min = Float.MAX_VALUE;
        float max = -Float.MAX_VALUE;
        for (int j = 0; j < 32; j++) {
            min = Math.min(min, x[s + j]);
            max = Math.max(max, x[s + j]);
        }
        float d = (max - min) / 15;
        float id = d != 0f ? 1.0f / d : 0.0f;
        y.set(SHORT, o, HalfFloats.floatToF16(d));
        y.set(SHORT, o + 2, HalfFloats.floatToF16(min));
        for (int j = 0; j < 16; j++) {
            int q0 = Math.min(15, (byte) (int) ((x[s + j] - min) * id + 0.5f));
            int q1 = Math.min(15, (byte) (int) ((x[s + 16 + j] - min) * id + 0.5f));
            y.set(BYTE, o + 4 + j, (byte) (q0 | q1 << 4));
        }
    }

    private static void q5_0(float[] x, int s, MemorySegment y, long o) {
        float d = signedMax(x, s, 32) / -16;
        float id = d != 0f ? 1.0f / d : 0.0f;
        y.set(SHORT, o, HalfFloats.floatToF16(d));
        int qh = 0;
        for (int j = 0; j < 16; j++) {
            int q0 = Math.min(31, (byte) (int) (x[s + j] * id + 16.5f));
            int q1 = Math.min(31, (byte) (int) (x[s + 16 + j] * id + 16.5f));
            y.set(BYTE, o + 6 + j, (byte) ((q0 & 0x0F) | (q1 & 0x0F) << 4));
            qh |= ((q0 & 0x10) >>> 4) << j;
            qh |= ((q1 & 0x10) >>> 4) << (j + 16);
        }
        y.set(Layouts.INT, o + 2, qh);
    }

    private static void q5_1(float[] x, int s, MemorySegment y, long o) {
        float min = Float.MAX_VALUE;
        float max = -Float.MAX_VALUE;
        for (int j = 0; j < 32; j++) {
            min = Math.min(min, x[s + j]);
            max = Math.max(max, x[s + j]);
        }
        float d = (max - min) / 31;
        float id = d != 0f ? 1.0f / d : 0.0f;
        y.set(SHORT, o, HalfFloats.floatToF16(d));
        y.set(SHORT, o + 2, HalfFloats.floatToF16(min));
        int qh = 0;
        for (int j = 0; j < 16; j++) {
            int q0 = ((int) ((x[s + j] - min) * id + 0.5f)) & 0xFF;
            int q1 = ((int) ((x[s + 16 + j] - min) * id + 0.5f)) & 0xFF;
            y.set(BYTE, o + 8 + j, (byte) ((q0 & 0x0F) | (q1 & 0x0F) << 4));
            qh |= ((q0 & 0x10) >>> 4) << j;
            qh |= ((q1 & 0x10) >>> 4) << (j + 16);
        }
        y.set(Layouts.INT, o + 4, qh);
    }

    // ---- K-quants (256-element super-blocks) ---------------------------------------------------

    /** ggml's {@code quantize_row_q8_K_ref} ({@link VecDotType#quantizeQ8KBlock}), with the int16 group sums. */
    private static void q8K(float[] x, int s, MemorySegment y, long o) {
        float[] v = new float[256];
        float d = VecDotType.quantizeQ8KBlock(x, s, v, 0);
        for (int g = 0; g < 16; g++) {
            int sum = 0;
            for (int j = 16 * g; j < 16 * g + 16; j++) {
                y.set(BYTE, o + 4 + j, (byte) v[j]);
                sum += (byte) v[j];
            }
            y.set(SHORT, o + 260 + 2L * g, (short) sum);
        }
        y.set(FLOAT, o, d);
    }

    /**
     * ggml's {@code make_qkx2_quants}: a scale and a minimum for {@code n} values with levels
     * 0..nmax, searching {@code nstep+1} candidate scales for the least weighted error.
     * Returns the scale; {@code minOut[0]} receives minus the (non-positive) minimum.
     */
    private static float makeQkx2(
            int n,
            int nmax,
            float[] x,
            int s,
            float[] weights,
            int[] L,
            int lOff,
            float[] minOut,
            int[] laux,
            float rmin,
            float rdelta,
            int nstep) {
        float min = x[s];
        float max = x[s];
        float sumW = weights[0];
        float sumX = sumW * x[s];
        for (int i = 1; i < n; i++) {
            if (x[s + i] < min) {
                min = x[s + i];
            }
            if (x[s + i] > max) {
                max = x[s + i];
            }
            float w = weights[i];
            sumW += w;
            sumX += w * x[s + i];
        }
        if (min > 0) {
            min = 0;
        }
        if (max == min) {
            Arrays.fill(L, lOff, lOff + n, 0);
            minOut[0] = -min;
            return 0f;
        }
        float iscale = nmax / (max - min);
        float scale = 1 / iscale;
        float bestError = 0;
        for (int i = 0; i < n; i++) {
            int l = Quants.nearestInt(iscale * (x[s + i] - min));
            L[lOff + i] = Math.max(0, Math.min(nmax, l));
            float diff = scale * L[lOff + i] + min - x[s + i];
            bestError += weights[i] * (diff * diff);
        }
        for (int is = 0; is <= nstep; is++) {
            iscale = (rmin + rdelta * is + nmax) / (max - min);
            float sumL = 0;
            float sumL2 = 0;
            float sumXL = 0;
            for (int i = 0; i < n; i++) {
                int l = Math.max(0, Math.min(nmax, Quants.nearestInt(iscale * (x[s + i] - min))));
                laux[i] = l;
                float w = weights[i];
                sumL += w * l;
                sumL2 += w * l * l;
                sumXL += w * l * x[s + i];
            }
            float det = sumW * sumL2 - sumL * sumL;
            if (det > 0) {
                float thisScale = (sumW * sumXL - sumX * sumL) / det;
                float thisMin = (sumL2 * sumX - sumL * sumXL) / det;
                if (thisMin > 0) {
                    thisMin = 0;
                    thisScale = sumXL / sumL2;
                }
                float curError = 0;
                for (int i = 0; i < n; i++) {
                    float diff = thisScale * laux[i] + thisMin - x[s + i];
                    curError += weights[i] * (diff * diff);
                }
                if (curError < bestError) {
                    System.arraycopy(laux, 0, L, lOff, n);
                    bestError = curError;
                    scale = thisScale;
                    min = thisMin;
                }
            }
        }
        minOut[0] = -min;
        return scale;
    }

    /** Q4_K ({@code nmax} 15) and Q5_K ({@code nmax} 31): ggml's {@code quantize_row_q4_K_ref} / {@code q5_K_ref}. */
    private static void q45K(float[] x, int s, MemorySegment y, long o, int nmax) {
        int[] L = new int[256];
        int[] laux = new int[32];
        float[] weights = new float[32];
        float[] mins = new float[8];
        float[] scales = new float[8];
        float[] minOut = new float[1];
        float maxScale = 0;
        float maxMin = 0;
        for (int j = 0; j < 8; j++) {
            float sumX2 = 0;
            for (int l = 0; l < 32; l++) {
                sumX2 += x[s + 32 * j + l] * x[s + 32 * j + l];
            }
            float avX = (float) Math.sqrt(sumX2 / 32);
            for (int l = 0; l < 32; l++) {
                weights[l] = avX + Math.abs(x[s + 32 * j + l]);
            }
            scales[j] = nmax == 15
                    ? makeQkx2(32, 15, x, s + 32 * j, weights, L, 32 * j, minOut, laux, -1f, 0.1f, 20)
                    : makeQkx2(32, 31, x, s + 32 * j, weights, L, 32 * j, minOut, laux, -0.5f, 0.1f, 15);
            mins[j] = minOut[0];
            maxScale = Math.max(maxScale, scales[j]);
            maxMin = Math.max(maxMin, mins[j]);
        }
        float invScale = maxScale > 0 ? 63f / maxScale : 0f;
        float invMin = maxMin > 0 ? 63f / maxMin : 0f;
        int[] ls = new int[8];
        int[] lm = new int[8];
        for (int j = 0; j < 8; j++) {
            ls[j] = Math.min(63, Quants.nearestInt(invScale * scales[j]) & 0xFF);
            lm[j] = Math.min(63, Quants.nearestInt(invMin * mins[j]) & 0xFF);
        }
        byte[] packed = new byte[12];
        KScales.pack(ls, lm, packed);
        short d16 = HalfFloats.floatToF16(maxScale / 63f);
        short dmin16 = HalfFloats.floatToF16(maxMin / 63f);
        y.set(SHORT, o, d16);
        y.set(SHORT, o + 2, dmin16);
        MemorySegment.copy(MemorySegment.ofArray(packed), 0, y, o + 4, 12);
        float dAll = HalfFloats.f16ToFloat(d16);
        float dminAll = HalfFloats.f16ToFloat(dmin16);
        for (int j = 0; j < 8; j++) {
            float d = dAll * KScales.scale(y, o + 4, j);
            if (d == 0f) {
                continue;
            }
            float dm = dminAll * KScales.min(y, o + 4, j);
            for (int ii = 0; ii < 32; ii++) {
                int l = Quants.nearestInt((x[s + 32 * j + ii] + dm) / d);
                L[32 * j + ii] = Math.max(0, Math.min(nmax, l));
            }
        }
        if (nmax == 15) {
            for (int c = 0; c < 4; c++) {
                for (int l = 0; l < 32; l++) {
                    y.set(BYTE, o + 16 + 32 * c + l, (byte) (L[64 * c + l] | L[64 * c + l + 32] << 4));
                }
            }
        } else {
            byte[] qh = new byte[32];
            for (int c = 0; c < 4; c++) {
                int m1 = 1 << (2 * c);
                int m2 = 2 << (2 * c);
                for (int l = 0; l < 32; l++) {
                    int l1 = L[64 * c + l];
                    if (l1 > 15) {
                        l1 -= 16;
                        qh[l] |= (byte) m1;
                    }
                    int l2 = L[64 * c + l + 32];
                    if (l2 > 15) {
                        l2 -= 16;
                        qh[l] |= (byte) m2;
                    }
                    y.set(BYTE, o + 48 + 32 * c + l, (byte) (l1 | l2 << 4));
                }
            }
            MemorySegment.copy(MemorySegment.ofArray(qh), 0, y, o + 16, 32);
        }
    }

    /** ggml's {@code make_qx_quants} with rmse_type 1 (weights x²) and no importance weights. */
    private static float makeQx(int n, int nmax, float[] x, int s, int[] L, int lOff) {
        float max = 0;
        float amax = 0;
        for (int i = 0; i < n; i++) {
            float ax = Math.abs(x[s + i]);
            if (ax > amax) {
                amax = ax;
                max = x[s + i];
            }
        }
        if (amax < GROUP_MAX_EPS) {
            Arrays.fill(L, lOff, lOff + n, 0);
            return 0f;
        }
        float iscale = -nmax / max;
        float sumlx = 0;
        float suml2 = 0;
        for (int i = 0; i < n; i++) {
            int l = Math.max(-nmax, Math.min(nmax - 1, Quants.nearestInt(iscale * x[s + i])));
            L[lOff + i] = l + nmax;
            float w = x[s + i] * x[s + i];
            sumlx += w * x[s + i] * l;
            suml2 += w * l * l;
        }
        float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
        float best = scale * sumlx;
        for (int is = -9; is <= 9; is++) {
            if (is == 0) {
                continue;
            }
            iscale = -(nmax + 0.1f * is) / max;
            sumlx = 0;
            suml2 = 0;
            for (int i = 0; i < n; i++) {
                int l = Math.max(-nmax, Math.min(nmax - 1, Quants.nearestInt(iscale * x[s + i])));
                float w = x[s + i] * x[s + i];
                sumlx += w * x[s + i] * l;
                suml2 += w * l * l;
            }
            if (suml2 > 0 && sumlx * sumlx > best * suml2) {
                for (int i = 0; i < n; i++) {
                    int l = Quants.nearestInt(iscale * x[s + i]);
                    L[lOff + i] = nmax + Math.max(-nmax, Math.min(nmax - 1, l));
                }
                scale = sumlx / suml2;
                best = scale * sumlx;
            }
        }
        return scale;
    }

    /** ggml's {@code quantize_row_q6_K_ref}. */
    private static void q6K(float[] x, int s, MemorySegment y, long o) {
        int[] L = new int[256];
        float[] scales = new float[16];
        float maxScale = 0;
        float maxAbsScale = 0;
        for (int ib = 0; ib < 16; ib++) {
            float scale = makeQx(16, 32, x, s + 16 * ib, L, 16 * ib);
            scales[ib] = scale;
            float abs = Math.abs(scale);
            if (abs > maxAbsScale) {
                maxAbsScale = abs;
                maxScale = scale;
            }
        }
        if (maxAbsScale < GROUP_MAX_EPS) {
            y.asSlice(o, Q6KKernel.BYTES).fill((byte) 0);
            return;
        }
        float iscale = -128f / maxScale;
        short d16 = HalfFloats.floatToF16(1 / iscale);
        y.set(SHORT, o + 208, d16);
        for (int ib = 0; ib < 16; ib++) {
            y.set(BYTE, o + 192 + ib, (byte) Math.min(127, Quants.nearestInt(iscale * scales[ib])));
        }
        float dAll = HalfFloats.f16ToFloat(d16);
        for (int j = 0; j < 16; j++) {
            float d = dAll * y.get(BYTE, o + 192 + j);
            if (d == 0f) {
                continue;
            }
            for (int ii = 0; ii < 16; ii++) {
                int l = Quants.nearestInt(x[s + 16 * j + ii] / d);
                L[16 * j + ii] = Math.max(-32, Math.min(31, l)) + 32;
            }
        }
        for (int h = 0; h < 2; h++) {
            int j = 128 * h;
            long ql = o + 64 * h;
            long qh = o + 128 + 32 * h;
            for (int l = 0; l < 32; l++) {
                int q1 = L[j + l] & 0xF;
                int q2 = L[j + l + 32] & 0xF;
                int q3 = L[j + l + 64] & 0xF;
                int q4 = L[j + l + 96] & 0xF;
                y.set(BYTE, ql + l, (byte) (q1 | q3 << 4));
                y.set(BYTE, ql + l + 32, (byte) (q2 | q4 << 4));
                y.set(BYTE, qh + l, (byte) ((L[j + l] >> 4)
                        | (L[j + l + 32] >> 4) << 2
                        | (L[j + l + 64] >> 4) << 4
                        | (L[j + l + 96] >> 4) << 6));
            }
        }
    }
}

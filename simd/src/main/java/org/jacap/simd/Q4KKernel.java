package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.F;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.INT;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.LONG;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import org.jacap.gguf.GgmlType;

/**
 * Q4_K: super-blocks of 256 weights in 144 bytes, eight sub-blocks of 32.
 * <pre>
 *   bytes   0..1     d          f16 super-scale of the scales
 *   bytes   2..3     dmin       f16 super-scale of the minimums
 *   bytes   4..15    scales[12] 6-bit sc[8], m[8] (see {@link KScales})
 *   bytes  16..143   qs[128]    four chunks of 32 bytes; chunk c, byte l:
 *                                 low nibble  = element 64c + l       (sub-block 2c)
 *                                 high nibble = element 64c + 32 + l  (sub-block 2c+1)
 *
 *   w = (d * sc[j]) * q - (dmin * m[j])     (products first, then the difference, as ggml)
 * </pre>
 */
final class Q4KKernel implements TypeKernel {
    static final int BYTES = 144;

    @Override
    public GgmlType type() {
        return GgmlType.Q4_K;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_K;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, offset + 2));
            long lo = src.get(LONG, offset + 4);
            int hi = src.get(INT, offset + 12);
            for (int c = 0; c < 4; c++) {
                int sm = KScales.pairs(lo, hi, c);
                float d1 = d * (sm & 0xFF);
                float m1 = dmin * ((sm >>> 8) & 0xFF);
                float d2 = d * ((sm >>> 16) & 0xFF);
                float m2 = dmin * (sm >>> 24);
                int out = dstOff + 64 * c;
                for (int p = 0; p < 4; p++) {
                    ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 16 + 32 * c + 8 * p, LE);
                    Bytes.toFloat(Bytes.low(q)).mul(d1).sub(m1).intoArray(dst, out + 8 * p);
                    Bytes.toFloat(Bytes.high(q)).mul(d2).sub(m2).intoArray(dst, out + 32 + 8 * p);
                }
            }
        }
    }

    /**
     * Fused decode and dot: each weight is rebuilt in registers as {@code q·(d·sc) - dmin·m}
     * (one FMA) and multiplied into two running accumulators (low and high nibbles).
     */
    @Override
    public float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        FloatVector acc = FloatVector.zero(F);
        FloatVector acc2 = FloatVector.zero(F);
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, o + 2));
            long lo = src.get(LONG, o + 4);
            int hi = src.get(INT, o + 12);
            for (int c = 0; c < 4; c++) {
                int sm = KScales.pairs(lo, hi, c);
                FloatVector d1 = FloatVector.broadcast(F, d * (sm & 0xFF));
                FloatVector m1 = FloatVector.broadcast(F, -(dmin * ((sm >>> 8) & 0xFF)));
                FloatVector d2 = FloatVector.broadcast(F, d * ((sm >>> 16) & 0xFF));
                FloatVector m2 = FloatVector.broadcast(F, -(dmin * (sm >>> 24)));
                int xo = xOff + 256 * b + 64 * c;
                long qo = o + 16 + 32 * c;
                for (int p = 0; p < 4; p++) {
                    ByteVector q = ByteVector.fromMemorySegment(B64, src, qo + 8 * p, LE);
                    acc = Bytes.toFloat(Bytes.low(q)).fma(d1, m1).fma(FloatVector.fromArray(F, x, xo + 8 * p), acc);
                    acc2 = Bytes.toFloat(Bytes.high(q)).fma(d2, m2).fma(FloatVector.fromArray(F, x, xo + 32 + 8 * p), acc2);
                }
            }
        }
        return acc.add(acc2).reduceLanes(VectorOperators.ADD);
    }

    /** Scalar twin of {@link #dot}, factored the same way. */
    @Override
    public float dotScalar(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        float sumMin = 0f;
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, o + 2));
            for (int c = 0; c < 4; c++) {
                int xo = xOff + 256 * b + 64 * c;
                float s1 = 0f, s2 = 0f, x1 = 0f, x2 = 0f;
                for (int l = 0; l < 32; l++) {
                    int q = src.get(BYTE, o + 16 + 32 * c + l) & 0xFF;
                    s1 += (q & 0x0F) * x[xo + l];
                    s2 += (q >>> 4) * x[xo + 32 + l];
                    x1 += x[xo + l];
                    x2 += x[xo + 32 + l];
                }
                sum += s1 * (d * KScales.scale(src, o + 4, 2 * c)) + s2 * (d * KScales.scale(src, o + 4, 2 * c + 1));
                sumMin += x1 * (dmin * KScales.min(src, o + 4, 2 * c)) + x2 * (dmin * KScales.min(src, o + 4, 2 * c + 1));
            }
        }
        return sum - sumMin;
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, offset + 2));
            long scales = offset + 4;
            for (int c = 0; c < 4; c++) {
                float d1 = d * KScales.scale(src, scales, 2 * c);
                float m1 = dmin * KScales.min(src, scales, 2 * c);
                float d2 = d * KScales.scale(src, scales, 2 * c + 1);
                float m2 = dmin * KScales.min(src, scales, 2 * c + 1);
                for (int l = 0; l < 32; l++) {
                    int q = src.get(BYTE, offset + 16 + 32 * c + l) & 0xFF;
                    dst[dstOff + 64 * c + l] = d1 * (q & 0x0F) - m1;
                    dst[dstOff + 64 * c + 32 + l] = d2 * (q >>> 4) - m2;
                }
            }
        }
    }
}

package org.jacap.simd;

import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.INT;
import static org.jacap.simd.Layouts.LONG;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import org.jacap.gguf.GgmlType;

/**
 * Q5_K: super-blocks of 256 weights in 176 bytes, eight sub-blocks of 32.
 * <pre>
 *   bytes   0..1     d          f16 super-scale of the scales
 *   bytes   2..3     dmin       f16 super-scale of the minimums
 *   bytes   4..15    scales[12] 6-bit sc[8], m[8] (see {@link KScales})
 *   bytes  16..47    qh[32]     byte l, bit k: 5th bit of element 32k + l
 *   bytes  48..175   qs[128]    four chunks of 32 bytes; chunk c, byte l:
 *                                 low nibble  = element 64c + l       (5th bit: qh[l] bit 2c)
 *                                 high nibble = element 64c + 32 + l  (5th bit: qh[l] bit 2c+1)
 *
 *   w = (d * sc[j]) * q - (dmin * m[j]),  q in 0..31
 * </pre>
 */
final class Q5KKernel implements TypeKernel {
    static final int BYTES = 176;

    @Override
    public GgmlType type() {
        return GgmlType.Q5_K;
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
                    pair(src, offset + 48 + 32 * c + 8 * p, offset + 16 + 8 * p, 2 * c, d1, m1, d2, m2,
                            dst, out + 8 * p, out + 32 + 8 * p);
                }
            }
        }
    }

    /** Eight bytes of qs and of qh give 8 elements of sub-block 2c and 8 of 2c+1 (scalars in and out). */
    private static void pair(MemorySegment src, long qs, long qh, int bit, float d1, float m1, float d2, float m2,
                             float[] dst, int outLo, int outHi) {
        IntVector q = Bytes.u8(src, qs);
        IntVector h = Bytes.u8(src, qh);
        IntVector lo = q.and(0x0F).or(Bytes.field(h, bit, 1, 4));
        IntVector hi = q.lanewise(VectorOperators.LSHR, 4).or(Bytes.field(h, bit + 1, 1, 4));
        Bytes.toFloat(lo).mul(d1).sub(m1).intoArray(dst, outLo);
        Bytes.toFloat(hi).mul(d2).sub(m2).intoArray(dst, outHi);
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
                    int q = src.get(BYTE, offset + 48 + 32 * c + l) & 0xFF;
                    int h = src.get(BYTE, offset + 16 + l) & 0xFF;
                    int q0 = (q & 0x0F) + (((h >>> (2 * c)) & 1) << 4);
                    int q1 = (q >>> 4) + (((h >>> (2 * c + 1)) & 1) << 4);
                    dst[dstOff + 64 * c + l] = d1 * q0 - m1;
                    dst[dstOff + 64 * c + 32 + l] = d2 * q1 - m2;
                }
            }
        }
    }
}

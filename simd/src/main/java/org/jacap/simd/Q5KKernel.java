package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
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
            float d = Half.f16ToFloat(src.get(SHORT, offset));
            float dmin = Half.f16ToFloat(src.get(SHORT, offset + 2));
            long scales = offset + 4;
            for (int c = 0; c < 4; c++) {
                float d1 = d * KScales.scale(src, scales, 2 * c);
                float m1 = dmin * KScales.min(src, scales, 2 * c);
                float d2 = d * KScales.scale(src, scales, 2 * c + 1);
                float m2 = dmin * KScales.min(src, scales, 2 * c + 1);
                int out = dstOff + 64 * c;
                for (int p = 0; p < 4; p++) {
                    ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 48 + 32 * c + 8 * p, LE);
                    ByteVector h = ByteVector.fromMemorySegment(B64, src, offset + 16 + 8 * p, LE);
                    ByteVector lo = Bytes.low(q).or(Bytes.moveBit(h, 2 * c, 4));
                    ByteVector hi = Bytes.high(q).or(Bytes.moveBit(h, 2 * c + 1, 4));
                    Bytes.toFloat(lo).mul(d1).sub(m1).intoArray(dst, out + 8 * p);
                    Bytes.toFloat(hi).mul(d2).sub(m2).intoArray(dst, out + 32 + 8 * p);
                }
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = Half.f16ToFloat(src.get(SHORT, offset));
            float dmin = Half.f16ToFloat(src.get(SHORT, offset + 2));
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

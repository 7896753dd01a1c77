package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
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
                    ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 16 + 32 * c + 8 * p, LE);
                    Bytes.toFloat(Bytes.low(q)).mul(d1).sub(m1).intoArray(dst, out + 8 * p);
                    Bytes.toFloat(Bytes.high(q)).mul(d2).sub(m2).intoArray(dst, out + 32 + 8 * p);
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
                    int q = src.get(BYTE, offset + 16 + 32 * c + l) & 0xFF;
                    dst[dstOff + 64 * c + l] = d1 * (q & 0x0F) - m1;
                    dst[dstOff + 64 * c + 32 + l] = d2 * (q >>> 4) - m2;
                }
            }
        }
    }
}

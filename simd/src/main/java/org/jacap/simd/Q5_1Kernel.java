package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.INT;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import org.jacap.gguf.GgmlType;

/**
 * Q5_1: blocks of 32 weights in 24 bytes.
 * <pre>
 *   bytes 0..1    d       f16 scale
 *   bytes 2..3    m       f16 minimum
 *   bytes 4..7    qh      u32 little-endian; bit j = 5th bit of element j
 *   bytes 8..23   qs[16]  byte j: low nibble = low 4 bits of element j, high nibble = of element j+16
 *
 *   w[j] = d * (nibble | bit << 4) + m
 * </pre>
 */
final class Q5_1Kernel implements TypeKernel {
    static final int BYTES = 24;

    @Override
    public GgmlType type() {
        return GgmlType.Q5_1;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_1;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = Half.f16ToFloat(src.get(SHORT, offset));
            float m = Half.f16ToFloat(src.get(SHORT, offset + 2));
            int qh = src.get(INT, offset + 4);
            for (int p = 0; p < 2; p++) {
                ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 8 + 8 * p, LE);
                Q5_0Kernel.fiveBit(Bytes.low(q), qh, p, 0).mul(d).add(m).intoArray(dst, dstOff + 8 * p);
                Q5_0Kernel.fiveBit(Bytes.high(q), qh, p + 2, 0).mul(d).add(m).intoArray(dst, dstOff + 16 + 8 * p);
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = Half.f16ToFloat(src.get(SHORT, offset));
            float m = Half.f16ToFloat(src.get(SHORT, offset + 2));
            int qh = src.get(INT, offset + 4);
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, offset + 8 + j) & 0xFF;
                int h0 = ((qh >>> j) << 4) & 0x10;
                int h1 = (qh >>> (j + 12)) & 0x10;
                dst[dstOff + j] = ((q & 0x0F) | h0) * d + m;
                dst[dstOff + j + 16] = ((q >>> 4) | h1) * d + m;
            }
        }
    }
}

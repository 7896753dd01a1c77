package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import org.jacap.gguf.GgmlType;

/**
 * Q4_1: blocks of 32 weights in 20 bytes.
 * <pre>
 *   bytes 0..1    d       f16 scale
 *   bytes 2..3    m       f16 minimum
 *   bytes 4..19   qs[16]  byte j: low nibble = element j, high nibble = element j+16
 *
 *   w[j] = d * nibble + m      (multiply, then add: two roundings, as ggml)
 * </pre>
 */
final class Q4_1Kernel implements TypeKernel {
    static final int BYTES = 20;

    @Override
    public GgmlType type() {
        return GgmlType.Q4_1;
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
            for (int p = 0; p < 2; p++) {
                ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 4 + 8 * p, LE);
                Bytes.toFloat(Bytes.low(q)).mul(d).add(m).intoArray(dst, dstOff + 8 * p);
                Bytes.toFloat(Bytes.high(q)).mul(d).add(m).intoArray(dst, dstOff + 16 + 8 * p);
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = Half.f16ToFloat(src.get(SHORT, offset));
            float m = Half.f16ToFloat(src.get(SHORT, offset + 2));
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, offset + 4 + j) & 0xFF;
                dst[dstOff + j] = (q & 0x0F) * d + m;
                dst[dstOff + j + 16] = (q >>> 4) * d + m;
            }
        }
    }
}

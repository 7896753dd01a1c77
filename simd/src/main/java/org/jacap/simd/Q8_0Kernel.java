package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import org.jacap.gguf.GgmlType;

/**
 * Q8_0: blocks of 32 weights in 34 bytes.
 * <pre>
 *   bytes 0..1    d       f16 scale
 *   bytes 2..33   qs[32]  int8; element j = qs[j]
 *
 *   w[j] = d * qs[j]
 * </pre>
 */
final class Q8_0Kernel implements TypeKernel {
    static final int BYTES = 34;

    @Override
    public GgmlType type() {
        return GgmlType.Q8_0;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_0;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = Half.f16ToFloat(src.get(SHORT, offset));
            for (int p = 0; p < 4; p++) {
                ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 2 + 8 * p, LE);
                Bytes.toFloat(q).mul(d).intoArray(dst, dstOff + 8 * p);
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = Half.f16ToFloat(src.get(SHORT, offset));
            for (int j = 0; j < 32; j++) {
                dst[dstOff + j] = src.get(BYTE, offset + 2 + j) * d;
            }
        }
    }
}

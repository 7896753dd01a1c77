package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.FLOAT;
import static org.jacap.simd.Layouts.LE;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import org.jacap.gguf.GgmlType;

/**
 * Q8_K: super-blocks of 256 in 292 bytes (ggml's activation format for K-quant products).
 * <pre>
 *   bytes   0..3     d          f32 scale
 *   bytes   4..259   qs[256]    int8
 *   bytes 260..291   bsums[16]  int16: sum of qs over each group of 16 (not needed to dequantize)
 *
 *   w[j] = d * qs[j]
 * </pre>
 */
final class Q8KKernel implements TypeKernel {
    static final int BYTES = 292;

    @Override
    public GgmlType type() {
        return GgmlType.Q8_K;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_K;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = src.get(FLOAT, offset);
            for (int p = 0; p < 32; p++) {
                ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 4 + 8 * p, LE);
                Bytes.toFloat(q).mul(d).intoArray(dst, dstOff + 8 * p);
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = src.get(FLOAT, offset);
            for (int j = 0; j < 256; j++) {
                dst[dstOff + j] = d * src.get(BYTE, offset + 4 + j);
            }
        }
    }
}

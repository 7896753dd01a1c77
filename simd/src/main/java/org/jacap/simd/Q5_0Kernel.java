package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.I;
import static org.jacap.simd.Layouts.INT;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import org.jacap.gguf.GgmlType;

/**
 * Q5_0: blocks of 32 weights in 22 bytes.
 * <pre>
 *   bytes 0..1    d       f16 scale
 *   bytes 2..5    qh      u32 little-endian; bit j = 5th bit of element j
 *   bytes 6..21   qs[16]  byte j: low nibble = low 4 bits of element j, high nibble = of element j+16
 *
 *   w[j] = d * ((nibble | bit << 4) - 16)
 * </pre>
 */
final class Q5_0Kernel implements TypeKernel {
    static final int BYTES = 22;
    /** Lane l shifts qh right by l. */
    static final IntVector IOTA = IntVector.fromArray(I, new int[] {0, 1, 2, 3, 4, 5, 6, 7}, 0);

    @Override
    public GgmlType type() {
        return GgmlType.Q5_0;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_0;
    }

    /** Elements 8p..8p+7 of a 5-bit block from their nibbles and the 32 high bits. */
    static FloatVector fiveBit(ByteVector nibbles, int qh, int p, int bias) {
        IntVector hb = IntVector.broadcast(I, qh >>> (8 * p))
                .lanewise(VectorOperators.LSHR, IOTA)
                .and(1)
                .lanewise(VectorOperators.LSHL, 4);
        return (FloatVector) Bytes.toInt(nibbles).or(hb).sub(bias).convert(VectorOperators.I2F, 0);
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            int qh = src.get(INT, offset + 2);
            for (int p = 0; p < 2; p++) {
                ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 6 + 8 * p, LE);
                fiveBit(Bytes.low(q), qh, p, 16).mul(d).intoArray(dst, dstOff + 8 * p);
                fiveBit(Bytes.high(q), qh, p + 2, 16).mul(d).intoArray(dst, dstOff + 16 + 8 * p);
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            int qh = src.get(INT, offset + 2);
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, offset + 6 + j) & 0xFF;
                int h0 = ((qh >>> j) << 4) & 0x10;
                int h1 = (qh >>> (j + 12)) & 0x10;
                dst[dstOff + j] = (((q & 0x0F) | h0) - 16) * d;
                dst[dstOff + j + 16] = (((q >>> 4) | h1) - 16) * d;
            }
        }
    }
}

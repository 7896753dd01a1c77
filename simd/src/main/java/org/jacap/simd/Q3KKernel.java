package org.jacap.simd;

import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.IntVector;
import org.jacap.gguf.GgmlType;

/**
 * Q3_K: super-blocks of 256 weights in 110 bytes, sixteen sub-blocks of 16 with 6-bit scales.
 * <pre>
 *   bytes   0..31    hmask[32]   byte l, bit k: high bit of element 32k + l (set = no -4 offset)
 *   bytes  32..95    qs[64]      two halves of 32 bytes; half n, byte l, bits 2j..2j+1:
 *                                  low 2 bits of element 128n + 32j + l  (sub-block 8n + 2j + l/16)
 *   bytes  96..107   scales[12]  6-bit scales s[16], biased by 32:
 *                                  low 4 bits of s[i]:  byte i (i < 8) low nibble, byte i-8 high nibble (i >= 8)
 *                                  high 2 bits of s[i]: byte 8 + i%4, bits 2*(i/4) .. 2*(i/4)+1
 *   bytes 108..109   d           f16
 *
 *   w = (d * (s - 32)) * (q - (hbit ? 0 : 4))
 * </pre>
 */
final class Q3KKernel implements TypeKernel {
    static final int BYTES = 110;

    @Override
    public GgmlType type() {
        return GgmlType.Q3_K;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_K;
    }

    /** Scale of sub-block {@code i} (0..15), already unbiased: -32..31. */
    static int scale(MemorySegment src, long scales, int i) {
        int lo = i < 8 ? src.get(BYTE, scales + i) & 0x0F : (src.get(BYTE, scales + i - 8) & 0xFF) >>> 4;
        int hi = ((src.get(BYTE, scales + 8 + (i & 3)) & 0xFF) >>> (2 * (i >>> 2))) & 3;
        return (lo | hi << 4) - 32;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 108));
            for (int n = 0; n < 2; n++) {
                for (int j = 0; j < 4; j++) {
                    int out = dstOff + 128 * n + 32 * j;
                    for (int p = 0; p < 4; p++) {
                        float dl = d * scale(src, offset + 96, 8 * n + 2 * j + (p >>> 1));
                        eight(
                                src,
                                offset + 32 + 32 * n + 8 * p,
                                offset + 8 * p,
                                2 * j,
                                4 * n + j,
                                dl,
                                dst,
                                out + 8 * p);
                    }
                }
            }
        }
    }

    /** Eight elements: 2 bits at {@code shift} of qs, the hmask bit {@code bit} (scalars in and out). */
    private static void eight(
            MemorySegment src, long qs, long hmask, int shift, int bit, float dl, float[] dst, int out) {
        IntVector q = Bytes.field(Bytes.u8(src, qs), shift, 3, 0);
        IntVector v = q.or(Bytes.field(Bytes.u8(src, hmask), bit, 1, 2)).sub(4);
        Bytes.toFloat(v).mul(dl).intoArray(dst, out);
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 108));
            for (int n = 0; n < 2; n++) {
                for (int j = 0; j < 4; j++) {
                    for (int l = 0; l < 32; l++) {
                        float dl = d * scale(src, offset + 96, 8 * n + 2 * j + l / 16);
                        int q = ((src.get(BYTE, offset + 32 + 32 * n + l) & 0xFF) >>> (2 * j)) & 3;
                        boolean high = ((src.get(BYTE, offset + l) >>> (4 * n + j)) & 1) != 0;
                        dst[dstOff + 128 * n + 32 * j + l] = dl * (q - (high ? 0 : 4));
                    }
                }
            }
        }
    }
}

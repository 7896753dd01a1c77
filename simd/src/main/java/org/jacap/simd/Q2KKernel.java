package org.jacap.simd;

import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import org.jacap.gguf.GgmlType;

/**
 * Q2_K: super-blocks of 256 weights in 84 bytes, sixteen sub-blocks of 16.
 * <pre>
 *   bytes  0..15   scales[16]  low nibble: 4-bit scale, high nibble: 4-bit minimum, per sub-block
 *   bytes 16..79   qs[64]      two halves of 32 bytes; half n, byte l, bits 2j..2j+1:
 *                                element 128n + 32j + l   (sub-block 8n + 2j + l/16)
 *   bytes 80..81   d           f16 super-scale of the scales
 *   bytes 82..83   dmin        f16 super-scale of the minimums
 *
 *   w = (d * scale) * q - (dmin * min),  q in 0..3
 * </pre>
 */
final class Q2KKernel implements TypeKernel {
    static final int BYTES = 84;

    @Override
    public GgmlType type() {
        return GgmlType.Q2_K;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_K;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 80));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, offset + 82));
            for (int n = 0; n < 2; n++) {
                for (int j = 0; j < 4; j++) {
                    int out = dstOff + 128 * n + 32 * j;
                    for (int p = 0; p < 4; p++) {
                        int sc = src.get(BYTE, offset + 8 * n + 2 * j + (p >>> 1)) & 0xFF;
                        eight(
                                src,
                                offset + 16 + 32 * n + 8 * p,
                                2 * j,
                                d * (sc & 0x0F),
                                dmin * (sc >>> 4),
                                dst,
                                out + 8 * p);
                    }
                }
            }
        }
    }

    /** Eight 2-bit fields at {@code shift} (scalars in and out). */
    private static void eight(MemorySegment src, long qs, int shift, float dl, float ml, float[] dst, int out) {
        Bytes.toFloat(Bytes.field(Bytes.u8(src, qs), shift, 3, 0))
                .mul(dl)
                .sub(ml)
                .intoArray(dst, out);
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 80));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, offset + 82));
            for (int n = 0; n < 2; n++) {
                for (int j = 0; j < 4; j++) {
                    for (int l = 0; l < 32; l++) {
                        int sc = src.get(BYTE, offset + 8 * n + 2 * j + l / 16) & 0xFF;
                        int q = ((src.get(BYTE, offset + 16 + 32 * n + l) & 0xFF) >>> (2 * j)) & 3;
                        dst[dstOff + 128 * n + 32 * j + l] = d * (sc & 0x0F) * q - dmin * (sc >>> 4);
                    }
                }
            }
        }
    }
}

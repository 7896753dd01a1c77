package org.jacap.simd;

import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.LONG;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import org.jacap.gguf.GgmlType;

/**
 * Q6_K: super-blocks of 256 weights in 210 bytes, sixteen sub-blocks of 16 with int8 scales.
 * <pre>
 *   bytes   0..127   ql[128]     low 4 bits
 *   bytes 128..191   qh[64]      high 2 bits
 *   bytes 192..207   scales[16]  int8
 *   bytes 208..209   d           f16
 *
 *   half h = 0, 1 covers elements 128h .. 128h+127 with ql[64h..], qh[32h..], scales[8h..];
 *   for l in 0..31 (s = l / 16):
 *     element 128h +      l : ql[l]    low  nibble | qh[l] bits 0-1 << 4   scale[8h + s]
 *     element 128h + 32 + l : ql[l+32] low  nibble | qh[l] bits 2-3 << 4   scale[8h + s + 2]
 *     element 128h + 64 + l : ql[l]    high nibble | qh[l] bits 4-5 << 4   scale[8h + s + 4]
 *     element 128h + 96 + l : ql[l+32] high nibble | qh[l] bits 6-7 << 4   scale[8h + s + 6]
 *
 *   w = (d * scale) * (q - 32)
 * </pre>
 */
final class Q6KKernel implements TypeKernel {
    static final int BYTES = 210;

    @Override
    public GgmlType type() {
        return GgmlType.Q6_K;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_K;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 208));
            long sc0 = src.get(LONG, offset + 192);
            long sc1 = src.get(LONG, offset + 200);
            // 16 calls of one site per block: quarter i = (h, p, which) covers 8+8 elements
            for (int i = 0; i < 16; i++) {
                int h = i >>> 3;
                int p = (i >>> 1) & 3;
                int which = i & 1;
                long scales = h == 0 ? sc0 : sc1;
                int s = (p >>> 1) + 2 * which;
                float dLo = d * (byte) (scales >>> (8 * s));
                float dHi = d * (byte) (scales >>> (8 * (s + 4)));
                int out = dstOff + 128 * h + 32 * which + 8 * p;
                pair(src, offset + 64 * h + 32 * which + 8 * p, offset + 128 + 32 * h + 8 * p, 2 * which, 4 + 2 * which,
                        dLo, dHi, dst, out, out + 64);
            }
        }
    }

    /**
     * Eight bytes of ql give two outputs of 8: the low nibbles with qh bits {@code shLo}, the
     * high nibbles with qh bits {@code shHi}. Scalars in and out, so C2 may compile it apart
     * from a large caller without boxing vectors.
     */
    private static void pair(MemorySegment src, long ql, long qh, int shLo, int shHi, float dLo, float dHi,
                             float[] dst, int outLo, int outHi) {
        IntVector a = Bytes.u8(src, ql);
        IntVector hb = Bytes.u8(src, qh);
        IntVector lo = a.and(0x0F).or(Bytes.field(hb, shLo, 3, 4)).sub(32);
        IntVector hi = a.lanewise(VectorOperators.LSHR, 4).or(Bytes.field(hb, shHi, 3, 4)).sub(32);
        Bytes.toFloat(lo).mul(dLo).intoArray(dst, outLo);
        Bytes.toFloat(hi).mul(dHi).intoArray(dst, outHi);
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset + 208));
            for (int h = 0; h < 2; h++) {
                long ql = offset + 64 * h;
                long qh = offset + 128 + 32 * h;
                long sc = offset + 192 + 8 * h;
                int out = dstOff + 128 * h;
                for (int l = 0; l < 32; l++) {
                    int s = l / 16;
                    int a = src.get(BYTE, ql + l) & 0xFF;
                    int c = src.get(BYTE, ql + l + 32) & 0xFF;
                    int hb = src.get(BYTE, qh + l) & 0xFF;
                    int q1 = ((a & 0x0F) | ((hb & 3) << 4)) - 32;
                    int q2 = ((c & 0x0F) | (((hb >>> 2) & 3) << 4)) - 32;
                    int q3 = ((a >>> 4) | (((hb >>> 4) & 3) << 4)) - 32;
                    int q4 = ((c >>> 4) | (((hb >>> 6) & 3) << 4)) - 32;
                    dst[out + l] = d * src.get(BYTE, sc + s) * q1;
                    dst[out + 32 + l] = d * src.get(BYTE, sc + s + 2) * q2;
                    dst[out + 64 + l] = d * src.get(BYTE, sc + s + 4) * q3;
                    dst[out + 96 + l] = d * src.get(BYTE, sc + s + 6) * q4;
                }
            }
        }
    }
}

package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
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
            float d = Half.f16ToFloat(src.get(SHORT, offset + 208));
            for (int h = 0; h < 2; h++) {
                long ql = offset + 64 * h;
                long qh = offset + 128 + 32 * h;
                long sc = offset + 192 + 8 * h;
                int out = dstOff + 128 * h;
                for (int p = 0; p < 4; p++) {
                    int s = p >>> 1;
                    ByteVector a = ByteVector.fromMemorySegment(B64, src, ql + 8 * p, LE);
                    ByteVector c = ByteVector.fromMemorySegment(B64, src, ql + 32 + 8 * p, LE);
                    ByteVector hb = ByteVector.fromMemorySegment(B64, src, qh + 8 * p, LE);
                    ByteVector q1 = Bytes.low(a).or(Bytes.moveBits2(hb, 0, 4)).sub((byte) 32);
                    ByteVector q2 = Bytes.low(c).or(Bytes.moveBits2(hb, 2, 4)).sub((byte) 32);
                    ByteVector q3 = Bytes.high(a).or(Bytes.moveBits2(hb, 4, 4)).sub((byte) 32);
                    ByteVector q4 = Bytes.high(c).or(Bytes.moveBits2(hb, 6, 4)).sub((byte) 32);
                    Bytes.toFloat(q1).mul(d * src.get(BYTE, sc + s)).intoArray(dst, out + 8 * p);
                    Bytes.toFloat(q2).mul(d * src.get(BYTE, sc + s + 2)).intoArray(dst, out + 32 + 8 * p);
                    Bytes.toFloat(q3).mul(d * src.get(BYTE, sc + s + 4)).intoArray(dst, out + 64 + 8 * p);
                    Bytes.toFloat(q4).mul(d * src.get(BYTE, sc + s + 6)).intoArray(dst, out + 96 + 8 * p);
                }
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = Half.f16ToFloat(src.get(SHORT, offset + 208));
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

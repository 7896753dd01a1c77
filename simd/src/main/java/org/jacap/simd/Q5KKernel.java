package org.jacap.simd;

import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.INT;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.LONG;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.jacap.gguf.GgmlType;

/**
 * Q5_K: super-blocks of 256 weights in 176 bytes, eight sub-blocks of 32.
 * <pre>
 *   bytes   0..1     d          f16 super-scale of the scales
 *   bytes   2..3     dmin       f16 super-scale of the minimums
 *   bytes   4..15    scales[12] 6-bit sc[8], m[8] (see {@link KScales})
 *   bytes  16..47    qh[32]     byte l, bit k: 5th bit of element 32k + l
 *   bytes  48..175   qs[128]    four chunks of 32 bytes; chunk c, byte l:
 *                                 low nibble  = element 64c + l       (5th bit: qh[l] bit 2c)
 *                                 high nibble = element 64c + 32 + l  (5th bit: qh[l] bit 2c+1)
 *
 *   w = (d * sc[j]) * q - (dmin * m[j]),  q in 0..31
 * </pre>
 *
 * <p>The matrix-vector {@link #dot} works like Q6_K's: unpack a chunk to bytes (32 per vector
 * operation), then per sub-block {@code d·sc·Σq·x - dmin·m·Σx}, the factoring llama.cpp's integer
 * dot uses too.
 */
final class Q5KKernel implements TypeKernel {
    static final int BYTES = 176;
    private static final VectorSpecies<Byte> B256 = ByteVector.SPECIES_256;

    @Override
    public GgmlType type() {
        return GgmlType.Q5_K;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_K;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, offset + 2));
            long lo = src.get(LONG, offset + 4);
            int hi = src.get(INT, offset + 12);
            long sc = KScales.scales(lo, hi);
            long mn = KScales.mins(lo, hi);
            for (int c = 0; c < 4; c++) {
                float d1 = d * KScales.at(sc, 2 * c);
                float m1 = dmin * KScales.at(mn, 2 * c);
                float d2 = d * KScales.at(sc, 2 * c + 1);
                float m2 = dmin * KScales.at(mn, 2 * c + 1);
                int out = dstOff + 64 * c;
                for (int p = 0; p < 4; p++) {
                    pair(
                            src,
                            offset + 48 + 32 * c + 8 * p,
                            offset + 16 + 8 * p,
                            2 * c,
                            d1,
                            m1,
                            d2,
                            m2,
                            dst,
                            out + 8 * p,
                            out + 32 + 8 * p);
                }
            }
        }
    }

    /** Eight bytes of qs and of qh give 8 elements of sub-block 2c and 8 of 2c+1 (scalars in and out). */
    private static void pair(
            MemorySegment src,
            long qs,
            long qh,
            int bit,
            float d1,
            float m1,
            float d2,
            float m2,
            float[] dst,
            int outLo,
            int outHi) {
        IntVector q = Bytes.u8(src, qs);
        IntVector h = Bytes.u8(src, qh);
        IntVector lo = q.and(0x0F).or(Bytes.field(h, bit, 1, 4));
        IntVector hi = q.lanewise(VectorOperators.LSHR, 4).or(Bytes.field(h, bit + 1, 1, 4));
        Bytes.toFloat(lo).mul(d1).sub(m1).intoArray(dst, outLo);
        Bytes.toFloat(hi).mul(d2).sub(m2).intoArray(dst, outHi);
    }

    @Override
    public float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        for (int c = 0; c < count; c += DOT_CHUNK, offset += DOT_CHUNK / 256 * BYTES) {
            int n = Math.min(DOT_CHUNK, count - c);
            unpack(src, offset, n / 256, scratch.bytes, scratch.scales);
            sum += dotBytes(scratch.bytes, scratch.scales, x, xOff + c, n);
        }
        return sum;
    }

    /** Scalar twin of {@link #dot}: the same two passes. */
    @Override
    public float dotScalar(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        for (int c = 0; c < count; c += DOT_CHUNK, offset += DOT_CHUNK / 256 * BYTES) {
            int n = Math.min(DOT_CHUNK, count - c);
            unpackScalar(src, offset, n / 256, scratch.bytes, scratch.scales);
            for (int j = 0; j < n / 32; j++) {
                float sq = 0f;
                float sx = 0f;
                for (int i = 32 * j; i < 32 * j + 32; i++) {
                    sq += scratch.bytes[i] * x[xOff + c + i];
                    sx += x[xOff + c + i];
                }
                sum += sq * scratch.scales[2 * j] - sx * scratch.scales[2 * j + 1];
            }
        }
        return sum;
    }

    /**
     * {@code blocks} super-blocks to 5-bit {@code q} in {@code q[256b ..]}, and per sub-block j
     * {@code d·sc} at {@code scales[2j]} and {@code dmin·m} at {@code scales[2j+1]}.
     */
    static void unpack(MemorySegment src, long offset, int blocks, byte[] q, float[] scales) {
        for (int b = 0; b < blocks; b++, offset += BYTES) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, offset + 2));
            long lo = src.get(LONG, offset + 4);
            int hi = src.get(INT, offset + 12);
            long sc = KScales.scales(lo, hi);
            long mn = KScales.mins(lo, hi);
            for (int c = 0; c < 4; c++) {
                int s = 16 * b + 4 * c;
                scales[s] = d * KScales.at(sc, 2 * c);
                scales[s + 1] = dmin * KScales.at(mn, 2 * c);
                scales[s + 2] = d * KScales.at(sc, 2 * c + 1);
                scales[s + 3] = dmin * KScales.at(mn, 2 * c + 1);
                chunk(src, offset + 48 + 32 * c, offset + 16, c, q, 256 * b + 64 * c);
            }
        }
    }

    /**
     * Chunk c: 32 bytes of qs and the 32 of qh give sub-blocks 2c (low nibbles, qh bit 2c) and
     * 2c+1 (high nibbles, qh bit 2c+1). Byte shifts go through 16-bit lanes; the masks drop the
     * bits that cross from the neighbouring byte.
     */
    private static void chunk(MemorySegment src, long qs, long qh, int c, byte[] q, int o) {
        ByteVector a = ByteVector.fromMemorySegment(B256, src, qs, LE);
        ShortVector h = ByteVector.fromMemorySegment(B256, src, qh, LE).reinterpretAsShorts();
        // bit 2c of each qh byte to bit 4, and bit 2c+1 to bit 4
        ByteVector h0 = (c <= 2
                        ? h.lanewise(VectorOperators.LSHL, 4 - 2 * c)
                        : h.lanewise(VectorOperators.LSHR, 2 * c - 4))
                .reinterpretAsBytes()
                .and((byte) 0x10);
        ByteVector h1 = (c <= 1
                        ? h.lanewise(VectorOperators.LSHL, 3 - 2 * c)
                        : h.lanewise(VectorOperators.LSHR, 2 * c - 3))
                .reinterpretAsBytes()
                .and((byte) 0x10);
        a.and((byte) 0x0F).or(h0).intoArray(q, o);
        a.reinterpretAsShorts()
                .lanewise(VectorOperators.LSHR, 4)
                .reinterpretAsBytes()
                .and((byte) 0x0F)
                .or(h1)
                .intoArray(q, o + 32);
    }

    /** Scalar twin of {@link #unpack}. */
    static void unpackScalar(MemorySegment src, long offset, int blocks, byte[] q, float[] scales) {
        for (int b = 0; b < blocks; b++, offset += BYTES) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, offset + 2));
            for (int j = 0; j < 8; j++) {
                scales[16 * b + 2 * j] = d * KScales.scale(src, offset + 4, j);
                scales[16 * b + 2 * j + 1] = dmin * KScales.min(src, offset + 4, j);
            }
            for (int c = 0; c < 4; c++) {
                for (int l = 0; l < 32; l++) {
                    int v = src.get(BYTE, offset + 48 + 32 * c + l) & 0xFF;
                    int h = src.get(BYTE, offset + 16 + l) & 0xFF;
                    q[256 * b + 64 * c + l] = (byte) ((v & 0x0F) | (((h >>> (2 * c)) & 1) << 4));
                    q[256 * b + 64 * c + 32 + l] = (byte) ((v >>> 4) | (((h >>> (2 * c + 1)) & 1) << 4));
                }
            }
        }
    }

    /** {@code Σ_j scales[2j]·Σ q·x - scales[2j+1]·Σ x} over the sub-blocks of 32 of {@code count} weights. */
    static float dotBytes(byte[] q, float[] scales, float[] x, int xOff, int count) {
        FloatVector acc = FloatVector.zero(F256);
        // Counted over groups of 32 so every index is linear in k (see Q6KKernel.dotBytes).
        for (int k = 0, groups = count / 32; k < groups; k++) {
            int i = 32 * k;
            FloatVector x0 = FloatVector.fromArray(F256, x, xOff + i);
            FloatVector x1 = FloatVector.fromArray(F256, x, xOff + i + 8);
            FloatVector x2 = FloatVector.fromArray(F256, x, xOff + i + 16);
            FloatVector x3 = FloatVector.fromArray(F256, x, xOff + i + 24);
            FloatVector sq = Bytes.toFloat(ByteVector.fromArray(B64, q, i)).mul(x0);
            FloatVector sq2 = Bytes.toFloat(ByteVector.fromArray(B64, q, i + 8)).mul(x1);
            sq = Bytes.toFloat(ByteVector.fromArray(B64, q, i + 16)).fma(x2, sq);
            sq2 = Bytes.toFloat(ByteVector.fromArray(B64, q, i + 24)).fma(x3, sq2);
            FloatVector sx = x0.add(x1).add(x2.add(x3));
            acc = sq.add(sq2).fma(FloatVector.broadcast(F256, scales[2 * k]), acc);
            acc = sx.fma(FloatVector.broadcast(F256, -scales[2 * k + 1]), acc);
        }
        return LaneSums.sum256(acc);
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 256; b < blocks; b++, offset += BYTES, dstOff += 256) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, offset + 2));
            long scales = offset + 4;
            for (int c = 0; c < 4; c++) {
                float d1 = d * KScales.scale(src, scales, 2 * c);
                float m1 = dmin * KScales.min(src, scales, 2 * c);
                float d2 = d * KScales.scale(src, scales, 2 * c + 1);
                float m2 = dmin * KScales.min(src, scales, 2 * c + 1);
                for (int l = 0; l < 32; l++) {
                    int q = src.get(BYTE, offset + 48 + 32 * c + l) & 0xFF;
                    int h = src.get(BYTE, offset + 16 + l) & 0xFF;
                    int q0 = (q & 0x0F) + (((h >>> (2 * c)) & 1) << 4);
                    int q1 = (q >>> 4) + (((h >>> (2 * c + 1)) & 1) << 4);
                    dst[dstOff + 64 * c + l] = d1 * q0 - m1;
                    dst[dstOff + 64 * c + 32 + l] = d2 * q1 - m2;
                }
            }
        }
    }
}

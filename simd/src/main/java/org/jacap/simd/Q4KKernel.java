package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B256;
import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.F512;
import static org.jacap.simd.Layouts.I256;
import static org.jacap.simd.Layouts.I512;
import static org.jacap.simd.Layouts.INT;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.LONG;
import static org.jacap.simd.Layouts.S256;
import static org.jacap.simd.Layouts.S512;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import org.jacap.gguf.GgmlType;

/**
 * Q4_K: super-blocks of 256 weights in 144 bytes, eight sub-blocks of 32.
 * <pre>
 *   bytes   0..1     d          f16 super-scale of the scales
 *   bytes   2..3     dmin       f16 super-scale of the minimums
 *   bytes   4..15    scales[12] 6-bit sc[8], m[8] (see {@link KScales})
 *   bytes  16..143   qs[128]    four chunks of 32 bytes; chunk c, byte l:
 *                                 low nibble  = element 64c + l       (sub-block 2c)
 *                                 high nibble = element 64c + 32 + l  (sub-block 2c+1)
 *
 *   w = (d * sc[j]) * q - (dmin * m[j])     (products first, then the difference, as ggml)
 * </pre>
 */
final class Q4KKernel implements IntegerDotKernel {
    static final int BYTES = 144;

    @Override
    public GgmlType type() {
        return GgmlType.Q4_K;
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
                    ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 16 + 32 * c + 8 * p, LE);
                    Bytes.toFloat(Bytes.low(q)).mul(d1).sub(m1).intoArray(dst, out + 8 * p);
                    Bytes.toFloat(Bytes.high(q)).mul(d2).sub(m2).intoArray(dst, out + 32 + 8 * p);
                }
            }
        }
    }

    /**
     * Fused decode and dot: each weight is rebuilt in registers as {@code q·(d·sc) - dmin·m}
     * (one FMA) and multiplied into two running accumulators (low and high nibbles).
     */
    @Override
    public float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        FloatVector acc = FloatVector.zero(F256);
        FloatVector acc2 = FloatVector.zero(F256);
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, o + 2));
            long lo = src.get(LONG, o + 4);
            int hi = src.get(INT, o + 12);
            long sc = KScales.scales(lo, hi);
            long mn = KScales.mins(lo, hi);
            for (int c = 0; c < 4; c++) {
                FloatVector d1 = FloatVector.broadcast(F256, d * KScales.at(sc, 2 * c));
                FloatVector m1 = FloatVector.broadcast(F256, -(dmin * KScales.at(mn, 2 * c)));
                FloatVector d2 = FloatVector.broadcast(F256, d * KScales.at(sc, 2 * c + 1));
                FloatVector m2 = FloatVector.broadcast(F256, -(dmin * KScales.at(mn, 2 * c + 1)));
                int xo = xOff + 256 * b + 64 * c;
                long qo = o + 16 + 32 * c;
                for (int p = 0; p < 4; p++) {
                    ByteVector q = ByteVector.fromMemorySegment(B64, src, qo + 8 * p, LE);
                    acc = Bytes.toFloat(Bytes.low(q)).fma(d1, m1).fma(FloatVector.fromArray(F256, x, xo + 8 * p), acc);
                    acc2 = Bytes.toFloat(Bytes.high(q))
                            .fma(d2, m2)
                            .fma(FloatVector.fromArray(F256, x, xo + 32 + 8 * p), acc2);
                }
            }
        }
        return LaneSums.sum256(acc.add(acc2));
    }

    /**
     * Integer kernel against Q8_K activations (one scale per 256, sums per 32):
     * {@code d·dx·Σ_j sc_j·Σ q·xq − dmin·dx·Σ_j m_j·Σ xq}. Per 64 weights (32 bytes of nibbles,
     * sub-blocks 2c and 2c+1) the bytes widen to shorts, products go in 16-bit lanes (|two| ≤ 3810),
     * pairs sum to ints, times the 6-bit scale into an int accumulator (≤ 4M per super-block);
     * one conversion per 256 weights. The minimums come from the activation sums, in scalars.
     * At 512 bits the 32 bytes of a chunk widen to 32 shorts whose low nibbles are all of
     * sub-block 2c and high nibbles all of 2c+1 (the GGUF order fits this width): one multiply
     * per sub-block.
     */
    @Override
    public float dotQ8Wide(MemorySegment src, long offset, QuantizedActivations x, int count) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        final int[] xs = x.sums;
        FloatVector acc = FloatVector.zero(F512);
        float minimums = 0f;
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            long lo = src.get(LONG, o + 4);
            int hi = src.get(INT, o + 12);
            long sc = KScales.scales(lo, hi);
            long mn = KScales.mins(lo, hi);
            IntVector isum = IntVector.zero(I512);
            int msum = 0;
            for (int c = 0; c < 4; c++) {
                int xo = 256 * b + 64 * c;
                ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B256, src, o + 16 + 32 * c, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2S, S512, 0);
                ShortVector pa = q.and((short) 0x0F).mul(ShortVector.fromArray(S512, xq, xo));
                ShortVector pb = q.lanewise(VectorOperators.LSHR, 4).mul(ShortVector.fromArray(S512, xq, xo + 32));
                IntVector ia = pa.reinterpretAsInts(); // pair sums in three ops: see Bytes
                IntVector ib = pb.reinterpretAsInts();
                ia = ia.add(ia.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
                ib = ib.add(ib.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
                isum = ia.mul(KScales.at(sc, 2 * c))
                        .add(ib.mul(KScales.at(sc, 2 * c + 1)))
                        .add(isum);
                msum += KScales.at(mn, 2 * c) * xs[8 * b + 2 * c] + KScales.at(mn, 2 * c + 1) * xs[8 * b + 2 * c + 1];
            }
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o)) * xd[b];
            acc = ((FloatVector) isum.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F512, d), acc);
            minimums += HalfFloats.f16ToFloat(src.get(SHORT, o + 2)) * xd[b] * msum;
        }
        return LaneSums.sum512(acc) - minimums;
    }

    /** {@link #dotQ8} at 256 bits (AVX2). */
    @Override
    public float dotQ8Narrow(MemorySegment src, long offset, QuantizedActivations x, int count) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        final int[] xs = x.sums;
        FloatVector acc = FloatVector.zero(F256);
        float minimums = 0f;
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            long lo = src.get(LONG, o + 4);
            int hi = src.get(INT, o + 12);
            long sc = KScales.scales(lo, hi);
            long mn = KScales.mins(lo, hi);
            IntVector isum = IntVector.zero(I256);
            int msum = 0;
            for (int c = 0; c < 4; c++) {
                int xo = 256 * b + 64 * c;
                long qo = o + 16 + 32 * c;
                ShortVector q0 = (ShortVector) ByteVector.fromMemorySegment(B128, src, qo, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
                ShortVector q1 = (ShortVector) ByteVector.fromMemorySegment(B128, src, qo + 16, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
                ShortVector pa = q0.and((short) 0x0F)
                        .mul(ShortVector.fromArray(S256, xq, xo))
                        .add(q1.and((short) 0x0F).mul(ShortVector.fromArray(S256, xq, xo + 16)));
                ShortVector pb = q0.lanewise(VectorOperators.LSHR, 4)
                        .mul(ShortVector.fromArray(S256, xq, xo + 32))
                        .add(q1.lanewise(VectorOperators.LSHR, 4).mul(ShortVector.fromArray(S256, xq, xo + 48)));
                IntVector ia = pa.reinterpretAsInts(); // pairs of shorts to ints, inline: see Bytes
                IntVector ib = pb.reinterpretAsInts();
                ia = ia.add(ia.lanewise(VectorOperators.LSHL, 16))
                        .lanewise(VectorOperators.ASHR, 16); // three ops: see Bytes
                ib = ib.add(ib.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
                isum = ia.mul(KScales.at(sc, 2 * c))
                        .add(ib.mul(KScales.at(sc, 2 * c + 1)))
                        .add(isum);
                msum += KScales.at(mn, 2 * c) * xs[8 * b + 2 * c] + KScales.at(mn, 2 * c + 1) * xs[8 * b + 2 * c + 1];
            }
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o)) * xd[b];
            acc = ((FloatVector) isum.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F256, d), acc);
            minimums += HalfFloats.f16ToFloat(src.get(SHORT, o + 2)) * xd[b] * msum;
        }
        return LaneSums.sum256(acc) - minimums;
    }

    /** Scalar twin of {@link #dotQ8}: the same integer sums per super-block. */
    @Override
    public float dotQ8Scalar(MemorySegment src, long offset, QuantizedActivations x, int count) {
        float sum = 0f;
        float minimums = 0f;
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            int isum = 0;
            int msum = 0;
            for (int j = 0; j < 8; j++) {
                int c = j / 2;
                int shift = 4 * (j % 2);
                int s = 0;
                for (int l = 0; l < 32; l++) {
                    int q = (src.get(BYTE, o + 16 + 32 * c + l) >>> shift) & 0x0F;
                    s += q * x.q[256 * b + 32 * j + l];
                }
                isum += KScales.scale(src, o + 4, j) * s;
                msum += KScales.min(src, o + 4, j) * x.sums[8 * b + j];
            }
            sum += isum * (HalfFloats.f16ToFloat(src.get(SHORT, o)) * x.d[b]);
            minimums += HalfFloats.f16ToFloat(src.get(SHORT, o + 2)) * x.d[b] * msum;
        }
        return sum - minimums;
    }

    /** Scalar twin of {@link #dot}, factored the same way. */
    @Override
    public float dotScalar(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        float sumMin = 0f;
        for (int b = 0, blocks = count / 256; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o));
            float dmin = HalfFloats.f16ToFloat(src.get(SHORT, o + 2));
            for (int c = 0; c < 4; c++) {
                int xo = xOff + 256 * b + 64 * c;
                float s1 = 0f, s2 = 0f, x1 = 0f, x2 = 0f;
                for (int l = 0; l < 32; l++) {
                    int q = src.get(BYTE, o + 16 + 32 * c + l) & 0xFF;
                    s1 += (q & 0x0F) * x[xo + l];
                    s2 += (q >>> 4) * x[xo + 32 + l];
                    x1 += x[xo + l];
                    x2 += x[xo + 32 + l];
                }
                sum += s1 * (d * KScales.scale(src, o + 4, 2 * c)) + s2 * (d * KScales.scale(src, o + 4, 2 * c + 1));
                sumMin +=
                        x1 * (dmin * KScales.min(src, o + 4, 2 * c)) + x2 * (dmin * KScales.min(src, o + 4, 2 * c + 1));
            }
        }
        return sum - sumMin;
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
                    int q = src.get(BYTE, offset + 16 + 32 * c + l) & 0xFF;
                    dst[dstOff + 64 * c + l] = d1 * (q & 0x0F) - m1;
                    dst[dstOff + 64 * c + 32 + l] = d2 * (q >>> 4) - m2;
                }
            }
        }
    }

    @Override
    public void dotQ8RowsWide(
            MemorySegment src,
            long offset,
            long rowBytes,
            QuantizedActivations x,
            int count,
            float[] out,
            int outOff,
            int rows) {
        for (int r = 0; r < rows; r++) {
            out[outOff + r] = dotQ8Wide(src, offset + r * rowBytes, x, count);
        }
    }

    @Override
    public void dotQ8RowsNarrow(
            MemorySegment src,
            long offset,
            long rowBytes,
            QuantizedActivations x,
            int count,
            float[] out,
            int outOff,
            int rows) {
        for (int r = 0; r < rows; r++) {
            out[outOff + r] = dotQ8Narrow(src, offset + r * rowBytes, x, count);
        }
    }
}

package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.I256;
import static org.jacap.simd.Layouts.INT;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.S256;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
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
final class Q5_0Kernel implements IntegerDotKernel {
    static final int BYTES = 22;
    /** Lane l shifts qh right by l. */
    static final IntVector IOTA = IntVector.fromArray(I256, new int[] {0, 1, 2, 3, 4, 5, 6, 7}, 0);

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
        IntVector hb = IntVector.broadcast(I256, qh >>> (8 * p))
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

    /** Lane j times this moves bit j of a short to bit 15 (a left shift by 15 - j, which AVX2 has no lane-wise form of). */
    private static final ShortVector TO_TOP = ShortVector.fromArray(S256, topShifts(), 0);

    private static short[] topShifts() {
        short[] s = new short[16];
        for (int j = 0; j < 16; j++) {
            s[j] = (short) (1 << (15 - j));
        }
        return s;
    }

    /**
     * Integer kernel against Q8_0 activations: per block the 16 nibble bytes widen to 16 shorts,
     * each half takes its fifth bits from 16 bits of qh (bit j to lane j: times {@link #TO_TOP},
     * shifted down to 16 or 0), {@code (q-16)·xq} in 16-bit lanes (|two| ≤ 4064), pairs summed
     * to 8 ints, one conversion, one FMA with {@code d·dx}.
     */
    @Override
    public float dotQ8Narrow(MemorySegment src, long offset, QuantizedActivations x, int count) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc = FloatVector.zero(F256); // even and odd blocks, rotated: see Q8_0Kernel.dotQ8Wide
        FloatVector odd = acc;
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            int qh = src.get(INT, o + 2);
            ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B128, src, o + 6, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
            ShortVector h0 = ShortVector.broadcast(S256, (short) qh)
                    .mul(TO_TOP)
                    .lanewise(VectorOperators.LSHR, 11)
                    .and((short) 0x10);
            ShortVector h1 = ShortVector.broadcast(S256, (short) (qh >>> 16))
                    .mul(TO_TOP)
                    .lanewise(VectorOperators.LSHR, 11)
                    .and((short) 0x10);
            ShortVector p = q.and((short) 0x0F)
                    .or(h0)
                    .sub((short) 16)
                    .mul(ShortVector.fromArray(S256, xq, 32 * b))
                    .add(q.lanewise(VectorOperators.LSHR, 4)
                            .or(h1)
                            .sub((short) 16)
                            .mul(ShortVector.fromArray(S256, xq, 32 * b + 16)));
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o)) * xd[b];
            IntVector pi = p.reinterpretAsInts(); // pair sums in three ops: see Bytes
            IntVector si = pi.add(pi.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            FloatVector next =
                    ((FloatVector) si.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F256, d), odd);
            odd = acc;
            acc = next;
        }
        return LaneSums.sum256(acc.add(odd));
    }

    /** The 256-bit form, for the reason {@link Q4_0Kernel#dotQ8Wide} gives (16 nibble bytes per block). */
    @Override
    public float dotQ8Wide(MemorySegment src, long offset, QuantizedActivations x, int count) {
        return dotQ8Narrow(src, offset, x, count);
    }

    @Override
    public float dotQ8Scalar(MemorySegment src, long offset, QuantizedActivations x, int count) {
        float sum = 0f;
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            int qh = src.get(INT, o + 2);
            int s = 0;
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, o + 6 + j) & 0xFF;
                int h0 = ((qh >>> j) << 4) & 0x10;
                int h1 = (qh >>> (j + 12)) & 0x10;
                s += (((q & 0x0F) | h0) - 16) * x.q[32 * b + j] + (((q >>> 4) | h1) - 16) * x.q[32 * b + j + 16];
            }
            sum += s * (HalfFloats.f16ToFloat(src.get(SHORT, o)) * x.d[b]);
        }
        return sum;
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

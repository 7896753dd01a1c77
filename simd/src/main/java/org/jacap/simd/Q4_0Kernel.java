package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
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
 * Q4_0: blocks of 32 weights in 18 bytes.
 * <pre>
 *   bytes 0..1    d       f16 scale
 *   bytes 2..17   qs[16]  byte j: low nibble = element j, high nibble = element j+16
 *
 *   w[j] = d * (nibble - 8)
 * </pre>
 */
final class Q4_0Kernel implements IntegerDotKernel {
    static final int BYTES = 18;

    @Override
    public GgmlType type() {
        return GgmlType.Q4_0;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_0;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            for (int p = 0; p < 2; p++) {
                ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 2 + 8 * p, LE);
                Bytes.toFloat(Bytes.low(q).sub((byte) 8)).mul(d).intoArray(dst, dstOff + 8 * p);
                Bytes.toFloat(Bytes.high(q).sub((byte) 8)).mul(d).intoArray(dst, dstOff + 16 + 8 * p);
            }
        }
    }

    /** Fused decode and dot: per block, {@code d * Σ (q-8)·x}; one accumulator in the plain
     * loop, which C2 unrolls (two accumulators picked by block parity measured no faster). */
    @Override
    public float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        FloatVector acc = FloatVector.zero(F256);
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            int xo = xOff + 32 * b;
            FloatVector d = FloatVector.broadcast(F256, HalfFloats.f16ToFloat(src.get(SHORT, o)));
            ByteVector q0 = ByteVector.fromMemorySegment(B64, src, o + 2, LE);
            ByteVector q1 = ByteVector.fromMemorySegment(B64, src, o + 10, LE);
            FloatVector s = Bytes.toFloat(Bytes.low(q0).sub((byte) 8)).mul(FloatVector.fromArray(F256, x, xo));
            FloatVector t = Bytes.toFloat(Bytes.low(q1).sub((byte) 8)).mul(FloatVector.fromArray(F256, x, xo + 8));
            s = Bytes.toFloat(Bytes.high(q0).sub((byte) 8)).fma(FloatVector.fromArray(F256, x, xo + 16), s);
            t = Bytes.toFloat(Bytes.high(q1).sub((byte) 8)).fma(FloatVector.fromArray(F256, x, xo + 24), t);
            acc = s.add(t).fma(d, acc);
        }
        return LaneSums.sum256(acc);
    }

    /** Scalar twin of {@link #dot}, factored the same way. */
    @Override
    public float dotScalar(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            int xo = xOff + 32 * b;
            float s = 0f;
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, o + 2 + j) & 0xFF;
                s += ((q & 0x0F) - 8) * x[xo + j] + ((q >>> 4) - 8) * x[xo + j + 16];
            }
            sum += s * HalfFloats.f16ToFloat(src.get(SHORT, o));
        }
        return sum;
    }

    /**
     * Integer kernel: per block, the 16 nibble bytes widened to 16 shorts give elements 0..15
     * (low nibbles) and 16..31 (high); {@code (q-8)·xq} in 16-bit lanes (|sum of two| ≤ 2032),
     * pairs summed to 8 ints, one conversion, one FMA with {@code d·dx}. One block per
     * iteration in the plain {@code b < blocks} form: C2 then unrolls it and hoists every bounds
     * check (the earlier two-blocks form {@code b + 1 < blocks} kept ten checks per iteration).
     */
    /**
     * The 256-bit form: a Q4_0 block's 16 nibble bytes fill 16 shorts, and the 18-byte blocks do
     * not line up two to a 512-bit vector. Gathering two blocks per vector (one 64-byte load and a
     * byte permute, activations reordered to match) measured the same 22-24 G weights/s per core
     * as this, and two 16-byte loads joined in one vector 20% slower, so the narrow form serves both.
     */
    @Override
    public float dotQ8Wide(MemorySegment src, long offset, QuantizedActivations x, int count) {
        return narrow(src, offset, x, 0, count / 32);
    }

    @Override
    public float dotQ8Narrow(MemorySegment src, long offset, QuantizedActivations x, int count) {
        return narrow(src, offset, x, 0, count / 32);
    }

    /** Blocks {@code [from, to)} of the row at {@code offset} at 256 bits. */
    private static float narrow(MemorySegment src, long offset, QuantizedActivations x, int from, int to) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc = FloatVector.zero(F256); // even and odd blocks, rotated: see Q8_0Kernel.dotQ8Wide
        FloatVector odd = acc;
        for (int b = from; b < to; b++) {
            long o = offset + (long) b * BYTES;
            ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B128, src, o + 2, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
            ShortVector p = q.and((short) 0x0F)
                    .sub((short) 8)
                    .mul(ShortVector.fromArray(S256, xq, 32 * b))
                    .add(q.lanewise(VectorOperators.LSHR, 4)
                            .sub((short) 8)
                            .mul(ShortVector.fromArray(S256, xq, 32 * b + 16)));
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o)) * xd[b];
            IntVector pi = p.reinterpretAsInts(); // pairs of shorts to ints in three ops, inline: see Bytes
            IntVector si = pi.add(pi.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            FloatVector next =
                    ((FloatVector) si.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F256, d), odd);
            odd = acc;
            acc = next;
        }
        return LaneSums.sum256(acc.add(odd));
    }

    @Override
    public float dotQ8Scalar(MemorySegment src, long offset, QuantizedActivations x, int count) {
        float sum = 0f;
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            sum += blockSum(src, o, x.q, 32 * b) * (HalfFloats.f16ToFloat(src.get(SHORT, o)) * x.d[b]);
        }
        return sum;
    }

    /** {@code Σ (q-8)·xq} over the block at {@code o}, exactly. */
    private static int blockSum(MemorySegment src, long o, short[] xq, int xo) {
        int s = 0;
        for (int j = 0; j < 16; j++) {
            int q = src.get(BYTE, o + 2 + j) & 0xFF;
            s += ((q & 0x0F) - 8) * xq[xo + j] + ((q >>> 4) - 8) * xq[xo + j + 16];
        }
        return s;
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, offset + 2 + j) & 0xFF;
                dst[dstOff + j] = ((q & 0x0F) - 8) * d;
                dst[dstOff + j + 16] = ((q >>> 4) - 8) * d;
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

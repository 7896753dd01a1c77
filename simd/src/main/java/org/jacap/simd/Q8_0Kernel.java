package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B256;
import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.F512;
import static org.jacap.simd.Layouts.LE;
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
 * Q8_0: blocks of 32 weights in 34 bytes.
 * <pre>
 *   bytes 0..1    d       f16 scale
 *   bytes 2..33   qs[32]  int8; element j = qs[j]
 *
 *   w[j] = d * qs[j]
 * </pre>
 */
final class Q8_0Kernel implements IntegerDotKernel {
    static final int BYTES = 34;

    @Override
    public GgmlType type() {
        return GgmlType.Q8_0;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_0;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            for (int p = 0; p < 4; p++) {
                ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 2 + 8 * p, LE);
                Bytes.toFloat(q).mul(d).intoArray(dst, dstOff + 8 * p);
            }
        }
    }

    /** Fused decode and dot: per block, {@code d * Σ q·x}; one accumulator in the plain
     * loop, which C2 unrolls (two accumulators picked by block parity measured no faster). */
    @Override
    public float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        FloatVector acc = FloatVector.zero(F256);
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            int xo = xOff + 32 * b;
            FloatVector d = FloatVector.broadcast(F256, HalfFloats.f16ToFloat(src.get(SHORT, o)));
            FloatVector s = Bytes.toFloat(ByteVector.fromMemorySegment(B64, src, o + 2, LE))
                    .mul(FloatVector.fromArray(F256, x, xo));
            FloatVector t = Bytes.toFloat(ByteVector.fromMemorySegment(B64, src, o + 10, LE))
                    .mul(FloatVector.fromArray(F256, x, xo + 8));
            s = Bytes.toFloat(ByteVector.fromMemorySegment(B64, src, o + 18, LE))
                    .fma(FloatVector.fromArray(F256, x, xo + 16), s);
            t = Bytes.toFloat(ByteVector.fromMemorySegment(B64, src, o + 26, LE))
                    .fma(FloatVector.fromArray(F256, x, xo + 24), t);
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
            for (int j = 0; j < 32; j++) {
                s += src.get(BYTE, o + 2 + j) * x[xo + j];
            }
            sum += s * HalfFloats.f16ToFloat(src.get(SHORT, o));
        }
        return sum;
    }

    /**
     * Integer kernel at 512 bits: per block, the 32 int8 weights widened to 32 shorts, one
     * 16-bit multiply, pairs summed to 16 ints, one conversion, one FMA with {@code d·dx}.
     * At 256 bits, the two halves of 16 int8 weights widened to shorts,
     * {@code w[j]·xq[j] + w[j+16]·xq[j+16]} in 16-bit lanes (|w| ≤ 128, |xq| ≤ 127, so at most
     * 32512), pairs summed to 8 ints, one conversion, one FMA with {@code d·dx}. One block per
     * iteration in the plain {@code b < blocks} form: C2 then unrolls it and hoists every bounds
     * check (the earlier two-blocks form {@code b + 1 < blocks} kept ten checks per iteration).
     * Two accumulators, even and odd blocks, rotated each iteration: with one, every block waited
     * for the previous block's FMA (4 cycles); the rotation halves that chain and leaves the loop
     * in its plain form (1.2x on Gemma 3's 262,144 × 640 output, docs/performance.md).
     */
    @Override
    public float dotQ8Wide(MemorySegment src, long offset, QuantizedActivations x, int count) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc = FloatVector.zero(F512);
        FloatVector odd = acc;
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            ShortVector p = ((ShortVector) ByteVector.fromMemorySegment(B256, src, o + 2, LE)
                            .convertShape(VectorOperators.B2S, S512, 0))
                    .mul(ShortVector.fromArray(S512, xq, 32 * b));
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o)) * xd[b];
            IntVector pi = p.reinterpretAsInts(); // pair sums in three ops: two products add up to at most 32512
            IntVector si = pi.add(pi.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            FloatVector next =
                    ((FloatVector) si.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F512, d), odd);
            odd = acc;
            acc = next;
        }
        return LaneSums.sum512(acc.add(odd));
    }

    /** {@link #dotQ8} at 256 bits (AVX2): two halves of 16 per block, the four-op pair sum, two rotated accumulators. */
    @Override
    public float dotQ8Narrow(MemorySegment src, long offset, QuantizedActivations x, int count) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc = FloatVector.zero(F256);
        FloatVector odd = acc;
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            ShortVector w0 = (ShortVector)
                    ByteVector.fromMemorySegment(B128, src, o + 2, LE).convertShape(VectorOperators.B2S, S256, 0);
            ShortVector w1 = (ShortVector)
                    ByteVector.fromMemorySegment(B128, src, o + 18, LE).convertShape(VectorOperators.B2S, S256, 0);
            ShortVector p = w0.mul(ShortVector.fromArray(S256, xq, 32 * b))
                    .add(w1.mul(ShortVector.fromArray(S256, xq, 32 * b + 16)));
            float d = HalfFloats.f16ToFloat(src.get(SHORT, o)) * xd[b];
            IntVector pi = p.reinterpretAsInts(); // pairs of shorts to ints, inline: see Bytes
            IntVector si = pi.lanewise(VectorOperators.LSHL, 16)
                    .lanewise(VectorOperators.ASHR, 16)
                    .add(pi.lanewise(VectorOperators.ASHR, 16));
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

    /** {@code Σ w·xq} over the block at {@code o}, exactly. */
    private static int blockSum(MemorySegment src, long o, short[] xq, int xo) {
        int s = 0;
        for (int j = 0; j < 32; j++) {
            s += src.get(BYTE, o + 2 + j) * xq[xo + j];
        }
        return s;
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            for (int j = 0; j < 32; j++) {
                dst[dstOff + j] = src.get(BYTE, offset + 2 + j) * d;
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

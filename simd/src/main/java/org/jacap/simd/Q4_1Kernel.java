package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B64;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
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
 * Q4_1: blocks of 32 weights in 20 bytes.
 * <pre>
 *   bytes 0..1    d       f16 scale
 *   bytes 2..3    m       f16 minimum
 *   bytes 4..19   qs[16]  byte j: low nibble = element j, high nibble = element j+16
 *
 *   w[j] = d * nibble + m      (multiply, then add: two roundings, as ggml)
 * </pre>
 */
final class Q4_1Kernel implements IntegerDotKernel {
    static final int BYTES = 20;

    @Override
    public GgmlType type() {
        return GgmlType.Q4_1;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.Q8_1;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            float m = HalfFloats.f16ToFloat(src.get(SHORT, offset + 2));
            for (int p = 0; p < 2; p++) {
                ByteVector q = ByteVector.fromMemorySegment(B64, src, offset + 4 + 8 * p, LE);
                Bytes.toFloat(Bytes.low(q)).mul(d).add(m).intoArray(dst, dstOff + 8 * p);
                Bytes.toFloat(Bytes.high(q)).mul(d).add(m).intoArray(dst, dstOff + 16 + 8 * p);
            }
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int b = 0, blocks = count / 32; b < blocks; b++, offset += BYTES, dstOff += 32) {
            float d = HalfFloats.f16ToFloat(src.get(SHORT, offset));
            float m = HalfFloats.f16ToFloat(src.get(SHORT, offset + 2));
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, offset + 4 + j) & 0xFF;
                dst[dstOff + j] = (q & 0x0F) * d + m;
                dst[dstOff + j + 16] = (q >>> 4) * d + m;
            }
        }
    }

    /**
     * Integer kernel against Q8_1 activations (the Q8_0 values, with their sums per block):
     * {@code Σ_b d·dx·Σ q·xq + m·s} with s llama.cpp's f16 block sum of the activations. Per block the 16 nibble bytes widen to 16 shorts (low
     * nibbles elements 0-15, high 16-31), products in 16-bit lanes (|two| ≤ 3810), pairs summed to
     * 8 ints, one conversion, one FMA; the minimum term from the activation sums, in scalars.
     */
    @Override
    public float dotQ8Narrow(MemorySegment src, long offset, QuantizedActivations x, int count) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        final float[] xs = x.blockSums;
        FloatVector acc = FloatVector.zero(F256); // even and odd blocks, rotated: see Q8_0Kernel.dotQ8Wide
        FloatVector odd = acc;
        float minimums = 0f;
        float minimumsOdd = 0f;
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B128, src, o + 4, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
            ShortVector p = q.and((short) 0x0F)
                    .mul(ShortVector.fromArray(S256, xq, 32 * b))
                    .add(q.lanewise(VectorOperators.LSHR, 4).mul(ShortVector.fromArray(S256, xq, 32 * b + 16)));
            int dm = src.get(INT, o); // d and m in one bounds-checked load
            float d = HalfFloats.f16ToFloat((short) dm) * xd[b];
            IntVector pi = p.reinterpretAsInts(); // pair sums in three ops: see Bytes
            IntVector si = pi.add(pi.lanewise(VectorOperators.LSHL, 16)).lanewise(VectorOperators.ASHR, 16);
            FloatVector next =
                    ((FloatVector) si.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(F256, d), odd);
            odd = acc;
            acc = next;
            float m = minimumsOdd + HalfFloats.f16ToFloat((short) (dm >>> 16)) * xs[b];
            minimumsOdd = minimums;
            minimums = m;
        }
        return LaneSums.sum256(acc.add(odd)) + (minimums + minimumsOdd);
    }

    /** The 256-bit form, for the reason {@link Q4_0Kernel#dotQ8Wide} gives (same nibble layout). */
    @Override
    public float dotQ8Wide(MemorySegment src, long offset, QuantizedActivations x, int count) {
        return dotQ8Narrow(src, offset, x, count);
    }

    @Override
    public float dotQ8Scalar(MemorySegment src, long offset, QuantizedActivations x, int count) {
        float sum = 0f;
        float minimums = 0f;
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * BYTES;
            int s = 0;
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, o + 4 + j) & 0xFF;
                s += (q & 0x0F) * x.q[32 * b + j] + (q >>> 4) * x.q[32 * b + j + 16];
            }
            sum += s * (HalfFloats.f16ToFloat(src.get(SHORT, o)) * x.d[b]);
            minimums += HalfFloats.f16ToFloat(src.get(SHORT, o + 2)) * x.blockSums[b];
        }
        return sum + minimums;
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

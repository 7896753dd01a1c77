package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B256;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.F512;
import static org.jacap.simd.Layouts.FLOAT;
import static org.jacap.simd.Layouts.I256;
import static org.jacap.simd.Layouts.I512;
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
 * Q4_0 and Q4_1 repacked for decode, 32 rows side by side as {@link Q4KInterleaved}: the stored
 * kernels ({@link Q4_0Kernel}, {@link Q4_1Kernel}) run one row at a time, 32 weights a block,
 * and spend a pair sum, a conversion and an FMA on every block of every row. Here one lane is
 * one row: the activation is a broadcast per column, the products of 16 columns add up in 16-bit
 * lanes (at most 16·15·127 = 30,480), and the scale multiplies once per block for 32 rows. The
 * nibble bytes stay as stored (byte l: element l low, l + 16 high); the f16 scale and minimum
 * become floats at load.
 *
 * <p>One group of 32 rows and block {@code b} takes {@link #groupBlockBytes} bytes:
 * <pre>
 *   bytes    0..511  q[l][r]  nibble byte l of row r
 *   bytes  512..639  d[r]     f32 scale
 *   bytes  640..767  m[r]     f32 minimum (Q4_1 only)
 * </pre>
 * Per row and block the sum {@code Σ q·x − o·Σx} is an exact int (o = 8 for Q4_0, 0 for Q4_1),
 * {@code acc = fma(sum, d·dx, acc)} and, for Q4_1, {@code min = fma(m, s, min)} with s the
 * activations' Q8_1 block sum, in block order; the result {@code acc + min}. Each lane does what
 * {@link #rowsScalar} does for its row: the 512-bit, 256-bit and scalar forms agree bit for bit.
 */
final class Q4BlockInterleaved {
    static final int ROWS = Q4KInterleaved.ROWS;

    private static final int D = 16 * ROWS;
    private static final int M = D + 4 * ROWS;

    private Q4BlockInterleaved() {}

    /** Bytes of one group and block: Q4_0 has no minimums. */
    static int groupBlockBytes(GgmlType type) {
        return type == GgmlType.Q4_1 ? M + 4 * ROWS : M;
    }

    static long bytes(GgmlType type, int rows, int cols) {
        return (long) Q4KInterleaved.groups(rows) * (cols / 32) * groupBlockBytes(type);
    }

    /** Writes stored Q4_0 or Q4_1 rows {@code [r0, r1)} of {@code src} ({@code rowBytes} apart) into {@code dst} (zeroed). */
    static void repack(GgmlType type, MemorySegment src, long rowBytes, int r0, int r1, int cols, MemorySegment dst) {
        boolean minimum = type == GgmlType.Q4_1;
        int blockBytes = minimum ? Q4_1Kernel.BYTES : Q4_0Kernel.BYTES;
        int qs = minimum ? 4 : 2;
        int gb = groupBlockBytes(type);
        int blocks = cols / 32;
        for (int r = r0; r < r1; r++) {
            int lane = r % ROWS;
            for (int b = 0; b < blocks; b++) {
                long o = r * rowBytes + (long) b * blockBytes;
                long base = ((long) (r / ROWS) * blocks + b) * gb;
                for (int l = 0; l < 16; l++) {
                    dst.set(BYTE, base + (long) l * ROWS + lane, src.get(BYTE, o + qs + l));
                }
                dst.set(FLOAT, base + D + 4L * lane, HalfFloats.f16ToFloat(src.get(SHORT, o)));
                if (minimum) {
                    dst.set(FLOAT, base + M + 4L * lane, HalfFloats.f16ToFloat(src.get(SHORT, o + 2)));
                }
            }
        }
    }

    /**
     * Rows {@code [r0, r0+n)} (r0 a multiple of {@link #ROWS}) of the repacked {@code type} matrix
     * {@code w} against {@code x} (Q8_0 for Q4_0, Q8_1 for Q4_1) into {@code out[outOff + r0 ..)},
     * 512-bit; a group's rows past {@code r0+n} are computed and not written.
     */
    static void rowsWide(
            GgmlType type, MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 32;
        int gb = groupBlockBytes(type);
        boolean minimum = type == GgmlType.Q4_1;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            groupWide(w, (long) g * blocks * gb, gb, minimum, x, blocks, out, outOff + g * ROWS, r0 + n - g * ROWS);
        }
    }

    /** {@link #rowsWide} in 256-bit vectors: each group as two halves of 16 rows. */
    static void rowsNarrow(
            GgmlType type, MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 32;
        int gb = groupBlockBytes(type);
        boolean minimum = type == GgmlType.Q4_1;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            long gOff = (long) g * blocks * gb;
            int left = r0 + n - g * ROWS;
            halfNarrow(w, gOff, 0, gb, minimum, x, blocks, out, outOff + g * ROWS, left);
            if (left > 16) {
                halfNarrow(w, gOff, 16, gb, minimum, x, blocks, out, outOff + g * ROWS + 16, left - 16);
            }
        }
    }

    private static void groupWide(
            MemorySegment w,
            long gOff,
            int gb,
            boolean minimum,
            QuantizedActivations x,
            int blocks,
            float[] out,
            int outOff,
            int valid) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        final int[] xs = x.sums;
        final float[] xbs = x.blockSums;
        final int offset = minimum ? 0 : 8;
        FloatVector acc0 = FloatVector.zero(F512);
        FloatVector acc1 = FloatVector.zero(F512);
        FloatVector min0 = FloatVector.zero(F512);
        FloatVector min1 = FloatVector.zero(F512);
        for (int b = 0; b < blocks; b++) {
            long base = gOff + (long) b * gb;
            int xo = 32 * b;
            ShortVector lo = ShortVector.zero(S512);
            ShortVector hi = ShortVector.zero(S512);
            for (int l = 0; l < 16; l++) {
                ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B256, w, base + (long) l * ROWS, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2S, S512, 0);
                lo = q.and((short) 0x0F).mul(xq[xo + l]).add(lo);
                hi = q.lanewise(VectorOperators.LSHR, 4).mul(xq[xo + 16 + l]).add(hi);
            }
            int correction = offset * xs[b];
            IntVector s0 = ((IntVector) lo.convertShape(VectorOperators.S2I, I512, 0))
                    .add((IntVector) hi.convertShape(VectorOperators.S2I, I512, 0))
                    .sub(correction);
            IntVector s1 = ((IntVector) lo.convertShape(VectorOperators.S2I, I512, 1))
                    .add((IntVector) hi.convertShape(VectorOperators.S2I, I512, 1))
                    .sub(correction);
            float dx = xd[b];
            FloatVector d0 =
                    FloatVector.fromMemorySegment(F512, w, base + D, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F512, w, base + D + 64, LE).mul(dx);
            acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) s1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
            if (minimum) {
                FloatVector sx = FloatVector.broadcast(F512, xbs[b]);
                min0 = FloatVector.fromMemorySegment(F512, w, base + M, LE).fma(sx, min0);
                min1 = FloatVector.fromMemorySegment(F512, w, base + M + 64, LE).fma(sx, min1);
            }
        }
        if (minimum) {
            acc0 = acc0.add(min0);
            acc1 = acc1.add(min1);
        }
        if (valid >= ROWS) {
            acc0.intoArray(out, outOff);
            acc1.intoArray(out, outOff + 16);
        } else {
            acc0.intoArray(out, outOff, F512.indexInRange(0, valid));
            acc1.intoArray(out, outOff + 16, F512.indexInRange(16, valid));
        }
    }

    /** Rows {@code lane0 .. lane0+15} of one group in 256-bit vectors; writes the first {@code valid}. */
    private static void halfNarrow(
            MemorySegment w,
            long gOff,
            int lane0,
            int gb,
            boolean minimum,
            QuantizedActivations x,
            int blocks,
            float[] out,
            int outOff,
            int valid) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        final int[] xs = x.sums;
        final float[] xbs = x.blockSums;
        final int offset = minimum ? 0 : 8;
        FloatVector acc0 = FloatVector.zero(F256);
        FloatVector acc1 = FloatVector.zero(F256);
        FloatVector min0 = FloatVector.zero(F256);
        FloatVector min1 = FloatVector.zero(F256);
        for (int b = 0; b < blocks; b++) {
            long base = gOff + (long) b * gb;
            int xo = 32 * b;
            ShortVector lo = ShortVector.zero(S256);
            ShortVector hi = ShortVector.zero(S256);
            for (int l = 0; l < 16; l++) {
                ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B128, w, base + (long) l * ROWS + lane0, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
                lo = q.and((short) 0x0F).mul(xq[xo + l]).add(lo);
                hi = q.lanewise(VectorOperators.LSHR, 4).mul(xq[xo + 16 + l]).add(hi);
            }
            int correction = offset * xs[b];
            IntVector s0 = ((IntVector) lo.convertShape(VectorOperators.S2I, I256, 0))
                    .add((IntVector) hi.convertShape(VectorOperators.S2I, I256, 0))
                    .sub(correction);
            IntVector s1 = ((IntVector) lo.convertShape(VectorOperators.S2I, I256, 1))
                    .add((IntVector) hi.convertShape(VectorOperators.S2I, I256, 1))
                    .sub(correction);
            float dx = xd[b];
            long dOff = base + D + 4L * lane0;
            FloatVector d0 = FloatVector.fromMemorySegment(F256, w, dOff, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F256, w, dOff + 32, LE).mul(dx);
            acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) s1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
            if (minimum) {
                FloatVector sx = FloatVector.broadcast(F256, xbs[b]);
                long mOff = base + M + 4L * lane0;
                min0 = FloatVector.fromMemorySegment(F256, w, mOff, LE).fma(sx, min0);
                min1 = FloatVector.fromMemorySegment(F256, w, mOff + 32, LE).fma(sx, min1);
            }
        }
        if (minimum) {
            acc0 = acc0.add(min0);
            acc1 = acc1.add(min1);
        }
        if (valid >= 16) {
            acc0.intoArray(out, outOff);
            acc1.intoArray(out, outOff + 8);
        } else {
            acc0.intoArray(out, outOff, F256.indexInRange(0, valid));
            acc1.intoArray(out, outOff + 8, F256.indexInRange(8, valid));
        }
    }

    /**
     * Columns {@code [k0, k0+kn)} (whole blocks) of group {@code g}'s 32 rows as floats, column-major
     * ({@code dst[(k − k0)·32 + r]}) for {@link FloatLoops#tile8x32T}: {@code (q − 8)·d} (Q4_0) or
     * {@code q·d + m} (Q4_1), what {@link Q4_0Kernel#dequantize} and {@link Q4_1Kernel#dequantize}
     * give its row, so prefill reads this copy with the same bits.
     */
    static void dequantizeGroup(GgmlType type, MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        // one plain method per type: vectors chosen by a condition (or null) crashed C2's register
        // allocator on JDK 25.0.3 (SIGSEGV in Node::rematerialize, 2026-12-05)
        if (type == GgmlType.Q4_1) {
            dequantizeGroupQ4_1(w, g, cols, k0, kn, dst);
        } else {
            dequantizeGroupQ4_0(w, g, cols, k0, kn, dst);
        }
    }

    private static void dequantizeGroupQ4_0(MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        int gb = groupBlockBytes(GgmlType.Q4_0);
        int blocks = cols / 32;
        for (int b = k0 / 32, end = (k0 + kn) / 32; b < end; b++) {
            long base = ((long) g * blocks + b) * gb;
            int o = (32 * b - k0) * ROWS;
            for (int h = 0; h < 2; h++) {
                FloatVector d = FloatVector.fromMemorySegment(F512, w, base + D + 64L * h, LE);
                for (int l = 0; l < 16; l++) {
                    ByteVector q = ByteVector.fromMemorySegment(B128, w, base + (long) l * ROWS + 16 * h, LE);
                    ((FloatVector) q.and((byte) 0x0F).sub((byte) 8).convertShape(VectorOperators.B2F, F512, 0))
                            .mul(d)
                            .intoArray(dst, o + l * ROWS + 16 * h);
                    ((FloatVector) q.lanewise(VectorOperators.LSHR, 4)
                                    .sub((byte) 8)
                                    .convertShape(VectorOperators.B2F, F512, 0))
                            .mul(d)
                            .intoArray(dst, o + (l + 16) * ROWS + 16 * h);
                }
            }
        }
    }

    private static void dequantizeGroupQ4_1(MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        int gb = groupBlockBytes(GgmlType.Q4_1);
        int blocks = cols / 32;
        for (int b = k0 / 32, end = (k0 + kn) / 32; b < end; b++) {
            long base = ((long) g * blocks + b) * gb;
            int o = (32 * b - k0) * ROWS;
            for (int h = 0; h < 2; h++) {
                FloatVector d = FloatVector.fromMemorySegment(F512, w, base + D + 64L * h, LE);
                FloatVector m = FloatVector.fromMemorySegment(F512, w, base + M + 64L * h, LE);
                for (int l = 0; l < 16; l++) {
                    ByteVector q = ByteVector.fromMemorySegment(B128, w, base + (long) l * ROWS + 16 * h, LE);
                    ((FloatVector) q.and((byte) 0x0F).convertShape(VectorOperators.B2F, F512, 0))
                            .mul(d)
                            .add(m)
                            .intoArray(dst, o + l * ROWS + 16 * h);
                    ((FloatVector) q.lanewise(VectorOperators.LSHR, 4).convertShape(VectorOperators.B2F, F512, 0))
                            .mul(d)
                            .add(m)
                            .intoArray(dst, o + (l + 16) * ROWS + 16 * h);
                }
            }
        }
    }

    /** Row {@code r}'s minimum of block {@code b} in a repacked Q4_1 matrix of {@code blocks} blocks a row (the stored f16, as a float). */
    static float minimum(MemorySegment w, int r, int b, int blocks) {
        long base = ((long) (r / ROWS) * blocks + b) * groupBlockBytes(GgmlType.Q4_1);
        return w.get(FLOAT, base + M + 4L * (r % ROWS));
    }

    /** Scalar twin of {@link #dequantizeGroup}. */
    static void dequantizeGroupScalar(GgmlType type, MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        boolean minimum = type == GgmlType.Q4_1;
        int gb = groupBlockBytes(type);
        int blocks = cols / 32;
        for (int b = k0 / 32, end = (k0 + kn) / 32; b < end; b++) {
            long base = ((long) g * blocks + b) * gb;
            for (int l = 0; l < 16; l++) {
                for (int r = 0; r < ROWS; r++) {
                    int q = w.get(BYTE, base + (long) l * ROWS + r) & 0xFF;
                    float d = w.get(FLOAT, base + D + 4L * r);
                    int o = (32 * b - k0) * ROWS + r;
                    if (minimum) {
                        float m = w.get(FLOAT, base + M + 4L * r);
                        dst[o + l * ROWS] = (q & 0x0F) * d + m;
                        dst[o + (l + 16) * ROWS] = (q >>> 4) * d + m;
                    } else {
                        dst[o + l * ROWS] = ((q & 0x0F) - 8) * d;
                        dst[o + (l + 16) * ROWS] = ((q >>> 4) - 8) * d;
                    }
                }
            }
        }
    }

    /** Scalar twin of {@link #rowsWide}: each row's exact block sums and its float sums in block order. */
    static void rowsScalar(
            GgmlType type, MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 32;
        int gb = groupBlockBytes(type);
        boolean minimum = type == GgmlType.Q4_1;
        int offset = minimum ? 0 : 8;
        for (int r = r0; r < r0 + n; r++) {
            int lane = r % ROWS;
            long gOff = (long) (r / ROWS) * blocks * gb;
            float acc = 0f;
            float min = 0f;
            for (int b = 0; b < blocks; b++) {
                long base = gOff + (long) b * gb;
                int s = 0;
                for (int l = 0; l < 16; l++) {
                    int q = w.get(BYTE, base + (long) l * ROWS + lane) & 0xFF;
                    s += (q & 0x0F) * x.q[32 * b + l] + (q >>> 4) * x.q[32 * b + 16 + l];
                }
                s -= offset * x.sums[b];
                acc = Math.fma((float) s, w.get(FLOAT, base + D + 4L * lane) * x.d[b], acc);
                if (minimum) {
                    min = Math.fma(w.get(FLOAT, base + M + 4L * lane), x.blockSums[b], min);
                }
            }
            out[outOff + r] = minimum ? acc + min : acc;
        }
    }
}

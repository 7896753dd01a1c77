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

/**
 * Q8_0 repacked for decode (and Q5_0, which loads widened to Q8_0), 32 rows side by side as
 * {@link Q4KInterleaved}: the stored kernel ({@link Q8_0Kernel#dotQ8Wide}) sums product pairs
 * into ints and converts and scales them for every block of every row; here one lane is one
 * row, two columns' products add up in 16-bit lanes (at most 2·128·127 = 32,512), widen once
 * for both, and the block's scale multiplies once for 32 rows. The f16 scales become floats at
 * load; 36 bytes per row and block instead of 34.
 *
 * <p>One group of 32 rows and block {@code b} takes {@link #GROUP_BLOCK_BYTES} bytes:
 * <pre>
 *   bytes     0..1023  q[l][r]  element l of row r (int8)
 *   bytes  1024..1151  d[r]     f32 scale
 * </pre>
 * Per row and block the sum is an exact int and {@code acc = fma(Σ q·x, d·dx, acc)} in block
 * order: the 512-bit, 256-bit and scalar forms agree bit for bit.
 */
final class Q8_0Interleaved {
    static final int ROWS = Q4KInterleaved.ROWS;

    private static final int D = 32 * ROWS;
    static final int GROUP_BLOCK_BYTES = D + 4 * ROWS;

    private Q8_0Interleaved() {}

    static long bytes(int rows, int cols) {
        return (long) Q4KInterleaved.groups(rows) * (cols / 32) * GROUP_BLOCK_BYTES;
    }

    /** Writes stored Q8_0 rows {@code [r0, r1)} of {@code src} ({@code rowBytes} apart) into {@code dst} (zeroed). */
    static void repack(MemorySegment src, long rowBytes, int r0, int r1, int cols, MemorySegment dst) {
        int blocks = cols / 32;
        for (int r = r0; r < r1; r++) {
            int lane = r % ROWS;
            for (int b = 0; b < blocks; b++) {
                long o = r * rowBytes + (long) b * Q8_0Kernel.BYTES;
                long base = ((long) (r / ROWS) * blocks + b) * GROUP_BLOCK_BYTES;
                for (int l = 0; l < 32; l++) {
                    dst.set(BYTE, base + (long) l * ROWS + lane, src.get(BYTE, o + 2 + l));
                }
                dst.set(FLOAT, base + D + 4L * lane, HalfFloats.f16ToFloat(src.get(SHORT, o)));
            }
        }
    }

    /**
     * Rows {@code [r0, r0+n)} (r0 a multiple of {@link #ROWS}) of the repacked matrix {@code w}
     * against Q8_0 activations {@code x} into {@code out[outOff + r0 ..)}, 512-bit; a group's rows
     * past {@code r0+n} are computed and not written.
     */
    static void rowsWide(MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 32;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            groupWide(w, (long) g * blocks * GROUP_BLOCK_BYTES, x, blocks, out, outOff + g * ROWS, r0 + n - g * ROWS);
        }
    }

    /**
     * {@link #rowsWide} for a matrix whose quants lie in {@code −16..16} (a widened Q5_0, {@link
     * WeightMatrix#narrowQuants}): with activations in {@code −127..127} sixteen columns' products
     * add up exactly in 16-bit lanes (at most 16·16·127 = 32,512), so the sums widen to ints once
     * per 16 columns instead of once per 2. The same exact sums: the same bits.
     */
    static void rowsWideNarrowQuants(
            MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 32;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            groupWideNarrowQuants(
                    w, (long) g * blocks * GROUP_BLOCK_BYTES, x, blocks, out, outOff + g * ROWS, r0 + n - g * ROWS);
        }
    }

    // written out beside groupWide, not sharing its tail: a helper that takes or returns vectors and
    // that C2 leaves out of line boxes them (a two-group Q4_K variant with two such helpers: 2.9 t/s
    // instead of 17; docs/performance.md, 2026-12-08)
    private static void groupWideNarrowQuants(
            MemorySegment w, long gOff, QuantizedActivations x, int blocks, float[] out, int outOff, int valid) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc0 = FloatVector.zero(F512);
        FloatVector acc1 = FloatVector.zero(F512);
        for (int b = 0; b < blocks; b++) {
            long base = gOff + (long) b * GROUP_BLOCK_BYTES;
            int xo = 32 * b;
            ShortVector p = ShortVector.zero(S512);
            for (int l = 0; l < 16; l += 2) {
                ByteVector two = ByteVector.fromMemorySegment(ByteVector.SPECIES_512, w, base + (long) l * ROWS, LE);
                p = ((ShortVector) two.convertShape(VectorOperators.B2S, S512, 0))
                        .mul(xq[xo + l])
                        .add(p);
                p = ((ShortVector) two.convertShape(VectorOperators.B2S, S512, 1))
                        .mul(xq[xo + l + 1])
                        .add(p);
            }
            ShortVector p2 = ShortVector.zero(S512);
            for (int l = 16; l < 32; l += 2) {
                ByteVector two = ByteVector.fromMemorySegment(ByteVector.SPECIES_512, w, base + (long) l * ROWS, LE);
                p2 = ((ShortVector) two.convertShape(VectorOperators.B2S, S512, 0))
                        .mul(xq[xo + l])
                        .add(p2);
                p2 = ((ShortVector) two.convertShape(VectorOperators.B2S, S512, 1))
                        .mul(xq[xo + l + 1])
                        .add(p2);
            }
            IntVector s0 = ((IntVector) p.convertShape(VectorOperators.S2I, I512, 0))
                    .add((IntVector) p2.convertShape(VectorOperators.S2I, I512, 0));
            IntVector s1 = ((IntVector) p.convertShape(VectorOperators.S2I, I512, 1))
                    .add((IntVector) p2.convertShape(VectorOperators.S2I, I512, 1));
            float dx = xd[b];
            FloatVector d0 =
                    FloatVector.fromMemorySegment(F512, w, base + D, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F512, w, base + D + 64, LE).mul(dx);
            acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) s1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
        }
        if (valid >= ROWS) {
            acc0.intoArray(out, outOff);
            acc1.intoArray(out, outOff + 16);
        } else {
            acc0.intoArray(out, outOff, F512.indexInRange(0, valid));
            acc1.intoArray(out, outOff + 16, F512.indexInRange(16, valid));
        }
    }

    /** {@link #rowsWide} in 256-bit vectors: each group as two halves of 16 rows. */
    static void rowsNarrow(MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 32;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            long gOff = (long) g * blocks * GROUP_BLOCK_BYTES;
            int left = r0 + n - g * ROWS;
            halfNarrow(w, gOff, 0, x, blocks, out, outOff + g * ROWS, left);
            if (left > 16) {
                halfNarrow(w, gOff, 16, x, blocks, out, outOff + g * ROWS + 16, left - 16);
            }
        }
    }

    private static void groupWide(
            MemorySegment w, long gOff, QuantizedActivations x, int blocks, float[] out, int outOff, int valid) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc0 = FloatVector.zero(F512);
        FloatVector acc1 = FloatVector.zero(F512);
        for (int b = 0; b < blocks; b++) {
            long base = gOff + (long) b * GROUP_BLOCK_BYTES;
            int xo = 32 * b;
            IntVector s0 = IntVector.zero(I512);
            IntVector s1 = IntVector.zero(I512);
            for (int l = 0; l < 32; l += 2) {
                long qo = base + (long) l * ROWS;
                ShortVector p = ((ShortVector) ByteVector.fromMemorySegment(B256, w, qo, LE)
                                .convertShape(VectorOperators.B2S, S512, 0))
                        .mul(xq[xo + l])
                        .add(((ShortVector) ByteVector.fromMemorySegment(B256, w, qo + ROWS, LE)
                                        .convertShape(VectorOperators.B2S, S512, 0))
                                .mul(xq[xo + l + 1]));
                s0 = ((IntVector) p.convertShape(VectorOperators.S2I, I512, 0)).add(s0);
                s1 = ((IntVector) p.convertShape(VectorOperators.S2I, I512, 1)).add(s1);
            }
            float dx = xd[b];
            FloatVector d0 =
                    FloatVector.fromMemorySegment(F512, w, base + D, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F512, w, base + D + 64, LE).mul(dx);
            acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) s1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
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
            QuantizedActivations x,
            int blocks,
            float[] out,
            int outOff,
            int valid) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc0 = FloatVector.zero(F256);
        FloatVector acc1 = FloatVector.zero(F256);
        for (int b = 0; b < blocks; b++) {
            long base = gOff + (long) b * GROUP_BLOCK_BYTES;
            int xo = 32 * b;
            IntVector s0 = IntVector.zero(I256);
            IntVector s1 = IntVector.zero(I256);
            for (int l = 0; l < 32; l += 2) {
                long qo = base + (long) l * ROWS + lane0;
                ShortVector p = ((ShortVector) ByteVector.fromMemorySegment(B128, w, qo, LE)
                                .convertShape(VectorOperators.B2S, S256, 0))
                        .mul(xq[xo + l])
                        .add(((ShortVector) ByteVector.fromMemorySegment(B128, w, qo + ROWS, LE)
                                        .convertShape(VectorOperators.B2S, S256, 0))
                                .mul(xq[xo + l + 1]));
                s0 = ((IntVector) p.convertShape(VectorOperators.S2I, I256, 0)).add(s0);
                s1 = ((IntVector) p.convertShape(VectorOperators.S2I, I256, 1)).add(s1);
            }
            float dx = xd[b];
            long dOff = base + D + 4L * lane0;
            FloatVector d0 = FloatVector.fromMemorySegment(F256, w, dOff, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F256, w, dOff + 32, LE).mul(dx);
            acc0 = ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) s1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
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
     * ({@code dst[(k − k0)·32 + r]}) for {@link FloatLoops#tile8x32T}: each value {@code q·d}, what
     * {@link Q8_0Kernel#dequantize} gives its row, so prefill reads this copy with the same bits.
     */
    static void dequantizeGroup(MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        int blocks = cols / 32;
        for (int b = k0 / 32, end = (k0 + kn) / 32; b < end; b++) {
            long base = ((long) g * blocks + b) * GROUP_BLOCK_BYTES;
            FloatVector d0 = FloatVector.fromMemorySegment(F512, w, base + D, LE);
            FloatVector d1 = FloatVector.fromMemorySegment(F512, w, base + D + 64, LE);
            int o = (32 * b - k0) * ROWS;
            for (int l = 0; l < 32; l++) {
                long qo = base + (long) l * ROWS;
                ((FloatVector) ByteVector.fromMemorySegment(B128, w, qo, LE).convertShape(VectorOperators.B2F, F512, 0))
                        .mul(d0)
                        .intoArray(dst, o + l * ROWS);
                ((FloatVector) ByteVector.fromMemorySegment(B128, w, qo + 16, LE)
                                .convertShape(VectorOperators.B2F, F512, 0))
                        .mul(d1)
                        .intoArray(dst, o + l * ROWS + 16);
            }
        }
    }

    /** Scalar twin of {@link #dequantizeGroup}. */
    static void dequantizeGroupScalar(MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        int blocks = cols / 32;
        for (int b = k0 / 32, end = (k0 + kn) / 32; b < end; b++) {
            long base = ((long) g * blocks + b) * GROUP_BLOCK_BYTES;
            for (int l = 0; l < 32; l++) {
                for (int r = 0; r < ROWS; r++) {
                    dst[(32 * b - k0 + l) * ROWS + r] =
                            w.get(BYTE, base + (long) l * ROWS + r) * w.get(FLOAT, base + D + 4L * r);
                }
            }
        }
    }

    /** Scalar twin of {@link #rowsWide}: each row's exact block sums and its float sum in block order. */
    static void rowsScalar(MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 32;
        for (int r = r0; r < r0 + n; r++) {
            int lane = r % ROWS;
            long gOff = (long) (r / ROWS) * blocks * GROUP_BLOCK_BYTES;
            float acc = 0f;
            for (int b = 0; b < blocks; b++) {
                long base = gOff + (long) b * GROUP_BLOCK_BYTES;
                int s = 0;
                for (int l = 0; l < 32; l++) {
                    s += w.get(BYTE, base + (long) l * ROWS + lane) * x.q[32 * b + l];
                }
                acc = Math.fma((float) s, w.get(FLOAT, base + D + 4L * lane) * x.d[b], acc);
            }
            out[outOff + r] = acc;
        }
    }
}

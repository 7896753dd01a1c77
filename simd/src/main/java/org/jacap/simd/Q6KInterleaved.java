package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B64;
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
 * Q6_K repacked for decode, 32 rows side by side as {@link Q4KInterleaved}, with each weight
 * unpacked at load to the signed byte {@code q − 32}: the stored kernel spends most of its
 * instructions putting the 6 bits together ({@link Q6KKernel}), here a column of 32 rows is one
 * load and one sign extension. Products of 8 columns add up in 16-bit lanes (Q8_K activations
 * lie in [−127, 127], so at most 8·32·127 = 32,512), the int8 scale multiplies once per 16
 * columns for 32 rows. 276 bytes per row and super-block instead of 210.
 *
 * <p>One group of 32 rows and super-block {@code b} takes {@link #GROUP_BLOCK_BYTES} bytes, in the
 * order the kernel reads them: eight pairs of sub-blocks of {@link #PAIR_BYTES} each, then the
 * super-scales:
 * <pre>
 *   per pair p (bytes 1088p ..):  +0..63     sc[2p..2p+1][r]  int8 scales of sub-blocks 2p, 2p+1
 *                                 +64..1087  q[i][r]          elements i = 32p .. 32p+31 as the signed byte q − 32
 *   bytes 8704..8831                         d[r]             f32 super-scale
 * </pre>
 * The scales sit beside their quants rather than after all of them, and the kernels load them
 * before their quants: a kernel that reads the block strictly forward streams from memory at twice
 * the rate of one that jumps ahead for the scales (the hardware prefetcher loses a stream that
 * goes back; docs/performance.md, 2026-12-07 and 2026-12-08).
 * Per row and super-block the sum is an exact int and {@code acc = fma(Σ sc·Σqx, d·dx, acc)} in
 * block order: the 512-bit, 256-bit and scalar forms agree bit for bit.
 */
final class Q6KInterleaved {
    static final int ROWS = Q4KInterleaved.ROWS;

    /** Two sub-blocks' scales and quants: 2 × 32 scale bytes, then 32 elements × 32 rows. */
    static final int PAIR_BYTES = 2 * ROWS + 32 * ROWS;

    private static final int D = 8 * PAIR_BYTES;
    static final int GROUP_BLOCK_BYTES = D + 4 * ROWS;

    private Q6KInterleaved() {}

    static long bytes(int rows, int cols) {
        return (long) Q4KInterleaved.groups(rows) * (cols / 256) * GROUP_BLOCK_BYTES;
    }

    /** Writes stored Q6_K rows {@code [r0, r1)} of {@code src} ({@code rowBytes} apart) into {@code dst} (zeroed). */
    static void repack(MemorySegment src, long rowBytes, int r0, int r1, int cols, MemorySegment dst) {
        int blocks = cols / 256;
        for (int r = r0; r < r1; r++) {
            int lane = r % ROWS;
            for (int b = 0; b < blocks; b++) {
                long o = r * rowBytes + (long) b * Q6KKernel.BYTES;
                long base = ((long) (r / ROWS) * blocks + b) * GROUP_BLOCK_BYTES;
                for (int h = 0; h < 2; h++) {
                    for (int l = 0; l < 32; l++) {
                        int a = src.get(BYTE, o + 64 * h + l) & 0xFF;
                        int c = src.get(BYTE, o + 64 * h + l + 32) & 0xFF;
                        int hb = src.get(BYTE, o + 128 + 32 * h + l) & 0xFF;
                        int e = 128 * h + l;
                        put(dst, base, e, lane, (a & 0x0F) | (hb & 3) << 4);
                        put(dst, base, e + 32, lane, (c & 0x0F) | ((hb >>> 2) & 3) << 4);
                        put(dst, base, e + 64, lane, (a >>> 4) | ((hb >>> 4) & 3) << 4);
                        put(dst, base, e + 96, lane, (c >>> 4) | ((hb >>> 6) & 3) << 4);
                    }
                }
                for (int j = 0; j < 16; j++) {
                    dst.set(BYTE, base + scale(j) + lane, src.get(BYTE, o + 192 + j));
                }
                dst.set(FLOAT, base + D + 4L * lane, HalfFloats.f16ToFloat(src.get(SHORT, o + 208)));
            }
        }
    }

    private static void put(MemorySegment dst, long base, int element, int lane, int q) {
        dst.set(BYTE, base + quant(element) + lane, (byte) (q - 32));
    }

    // The kernels write these two out: groupWide is past C2's inlining budget, and with a call per
    // sub-block it read from L3 at 23 GB/s instead of 33 (probe of 2026-12-07).

    /** Offset in a group block of element {@code i}'s 32 rows. */
    private static long quant(int i) {
        return (long) PAIR_BYTES * (i >> 5) + 2 * ROWS + ROWS * (i & 31);
    }

    /** Offset in a group block of sub-block {@code j}'s 32 scales. */
    private static long scale(int j) {
        return (long) PAIR_BYTES * (j >> 1) + ROWS * (j & 1);
    }

    /** Rows {@code [r0, r0+n)} (r0 a multiple of {@link #ROWS}) into {@code out[outOff + r0 ..)}, 512-bit. */
    static void rowsWide(MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 256;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            groupWide(w, (long) g * blocks * GROUP_BLOCK_BYTES, x, blocks, out, outOff + g * ROWS, r0 + n - g * ROWS);
        }
    }

    /** {@link #rowsWide} in 256-bit vectors: each group as two halves of 16 rows. */
    static void rowsNarrow(MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 256;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            long base = (long) g * blocks * GROUP_BLOCK_BYTES;
            int left = r0 + n - g * ROWS;
            halfNarrow(w, base, 0, x, blocks, out, outOff + g * ROWS, left);
            if (left > 16) {
                halfNarrow(w, base, 16, x, blocks, out, outOff + g * ROWS + 16, left - 16);
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
            IntVector is0 = IntVector.zero(I512);
            IntVector is1 = IntVector.zero(I512);
            for (int j = 0; j < 16; j++) {
                int xo = 256 * b + 16 * j;
                // the scales before the quants, in address order (Q4KInterleaved.groupWide)
                long so = base + (long) PAIR_BYTES * (j >> 1) + ROWS * (j & 1); // scale(j)
                IntVector sc0 = (IntVector)
                        ByteVector.fromMemorySegment(B128, w, so, LE).convertShape(VectorOperators.B2I, I512, 0);
                IntVector sc1 = (IntVector)
                        ByteVector.fromMemorySegment(B128, w, so + 16, LE).convertShape(VectorOperators.B2I, I512, 0);
                long qo = base + (long) PAIR_BYTES * (j >> 1) + 2 * ROWS + 16 * ROWS * (j & 1); // quant(16j)
                ShortVector p = ShortVector.zero(S512);
                for (int l = 0; l < 8; l += 2) {
                    ByteVector two = ByteVector.fromMemorySegment(ByteVector.SPECIES_512, w, qo + (long) l * ROWS, LE);
                    p = ((ShortVector) two.convertShape(VectorOperators.B2S, S512, 0))
                            .mul(xq[xo + l])
                            .add(p);
                    p = ((ShortVector) two.convertShape(VectorOperators.B2S, S512, 1))
                            .mul(xq[xo + l + 1])
                            .add(p);
                }
                ShortVector p2 = ShortVector.zero(S512);
                for (int l = 8; l < 16; l += 2) {
                    ByteVector two = ByteVector.fromMemorySegment(ByteVector.SPECIES_512, w, qo + (long) l * ROWS, LE);
                    p2 = ((ShortVector) two.convertShape(VectorOperators.B2S, S512, 0))
                            .mul(xq[xo + l])
                            .add(p2);
                    p2 = ((ShortVector) two.convertShape(VectorOperators.B2S, S512, 1))
                            .mul(xq[xo + l + 1])
                            .add(p2);
                }
                is0 = ((IntVector) p.convertShape(VectorOperators.S2I, I512, 0))
                        .add(((IntVector) p2.convertShape(VectorOperators.S2I, I512, 0)))
                        .mul(sc0)
                        .add(is0);
                is1 = ((IntVector) p.convertShape(VectorOperators.S2I, I512, 1))
                        .add(((IntVector) p2.convertShape(VectorOperators.S2I, I512, 1)))
                        .mul(sc1)
                        .add(is1);
            }
            float dx = xd[b];
            FloatVector d0 =
                    FloatVector.fromMemorySegment(F512, w, base + D, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F512, w, base + D + 64, LE).mul(dx);
            acc0 = ((FloatVector) is0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) is1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
        }
        if (valid >= ROWS) {
            acc0.intoArray(out, outOff);
            acc1.intoArray(out, outOff + 16);
        } else {
            acc0.intoArray(out, outOff, F512.indexInRange(0, valid));
            acc1.intoArray(out, outOff + 16, F512.indexInRange(16, valid));
        }
    }

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
            IntVector is0 = IntVector.zero(I256);
            IntVector is1 = IntVector.zero(I256);
            for (int j = 0; j < 16; j++) {
                int xo = 256 * b + 16 * j;
                // the scales first, in address order (see groupWide)
                long so = base + (long) PAIR_BYTES * (j >> 1) + ROWS * (j & 1) + lane0;
                IntVector sc0 = (IntVector)
                        ByteVector.fromMemorySegment(B64, w, so, LE).convertShape(VectorOperators.B2I, I256, 0);
                IntVector sc1 = (IntVector)
                        ByteVector.fromMemorySegment(B64, w, so + 8, LE).convertShape(VectorOperators.B2I, I256, 0);
                long qo = base + (long) PAIR_BYTES * (j >> 1) + 2 * ROWS + 16 * ROWS * (j & 1) + lane0;
                ShortVector p = ShortVector.zero(S256);
                for (int l = 0; l < 8; l++) {
                    p = ((ShortVector) ByteVector.fromMemorySegment(B128, w, qo + (long) l * ROWS, LE)
                                    .convertShape(VectorOperators.B2S, S256, 0))
                            .mul(xq[xo + l])
                            .add(p);
                }
                ShortVector p2 = ShortVector.zero(S256);
                for (int l = 8; l < 16; l++) {
                    p2 = ((ShortVector) ByteVector.fromMemorySegment(B128, w, qo + (long) l * ROWS, LE)
                                    .convertShape(VectorOperators.B2S, S256, 0))
                            .mul(xq[xo + l])
                            .add(p2);
                }
                is0 = ((IntVector) p.convertShape(VectorOperators.S2I, I256, 0))
                        .add(((IntVector) p2.convertShape(VectorOperators.S2I, I256, 0)))
                        .mul(sc0)
                        .add(is0);
                is1 = ((IntVector) p.convertShape(VectorOperators.S2I, I256, 1))
                        .add(((IntVector) p2.convertShape(VectorOperators.S2I, I256, 1)))
                        .mul(sc1)
                        .add(is1);
            }
            float dx = xd[b];
            long dOff = base + D + 4L * lane0;
            FloatVector d0 = FloatVector.fromMemorySegment(F256, w, dOff, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F256, w, dOff + 32, LE).mul(dx);
            acc0 = ((FloatVector) is0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) is1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
        }
        if (valid >= 16) {
            acc0.intoArray(out, outOff);
            acc1.intoArray(out, outOff + 8);
        } else {
            acc0.intoArray(out, outOff, F256.indexInRange(0, valid));
            acc1.intoArray(out, outOff + 8, F256.indexInRange(8, valid));
        }
    }

    /** Scalar twin of {@link #rowsWide}: each row's exact block sums and its float sum in block order. */
    static void rowsScalar(MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 256;
        for (int r = r0; r < r0 + n; r++) {
            int lane = r % ROWS;
            long gOff = (long) (r / ROWS) * blocks * GROUP_BLOCK_BYTES;
            float acc = 0f;
            for (int b = 0; b < blocks; b++) {
                long base = gOff + (long) b * GROUP_BLOCK_BYTES;
                int isum = 0;
                for (int j = 0; j < 16; j++) {
                    int s = 0;
                    for (int l = 0; l < 16; l++) {
                        s += w.get(BYTE, base + quant(16 * j + l) + lane) * x.q[256 * b + 16 * j + l];
                    }
                    isum += w.get(BYTE, base + scale(j) + lane) * s;
                }
                acc = Math.fma((float) isum, w.get(FLOAT, base + D + 4L * lane) * x.d[b], acc);
            }
            out[outOff + r] = acc;
        }
    }

    /**
     * Columns {@code [k0, k0+kn)} (multiples of 256) of group {@code g} of the repacked matrix
     * {@code w} as floats, {@code dst[(k − k0)·32 + r]}: per row {@code (d·sc)·q}, the stored
     * dequantizer's operations ({@link Q6KKernel#dequantize}), so the same values.
     */
    static void dequantizeGroup(MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        int blocks = cols / 256;
        for (int b = k0 / 256, end = (k0 + kn) / 256; b < end; b++) {
            long base = ((long) g * blocks + b) * GROUP_BLOCK_BYTES;
            int o = (256 * b - k0) * ROWS;
            for (int h = 0; h < 2; h++) {
                FloatVector d = FloatVector.fromMemorySegment(F512, w, base + D + 64L * h, LE);
                for (int j = 0; j < 16; j++) {
                    FloatVector ds =
                            d.mul((FloatVector) ByteVector.fromMemorySegment(B128, w, base + scale(j) + 16 * h, LE)
                                    .convertShape(VectorOperators.B2F, F512, 0));
                    for (int i = 16 * j; i < 16 * j + 16; i++) {
                        ((FloatVector) ByteVector.fromMemorySegment(B128, w, base + quant(i) + 16 * h, LE)
                                        .convertShape(VectorOperators.B2F, F512, 0))
                                .mul(ds)
                                .intoArray(dst, o + i * ROWS + 16 * h);
                    }
                }
            }
        }
    }

    /** Scalar twin of {@link #dequantizeGroup}. */
    static void dequantizeGroupScalar(MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        int blocks = cols / 256;
        for (int b = k0 / 256, end = (k0 + kn) / 256; b < end; b++) {
            long base = ((long) g * blocks + b) * GROUP_BLOCK_BYTES;
            int o = (256 * b - k0) * ROWS;
            for (int r = 0; r < ROWS; r++) {
                float d = w.get(FLOAT, base + D + 4L * r);
                for (int i = 0; i < 256; i++) {
                    float ds = d * w.get(BYTE, base + scale(i / 16) + r);
                    dst[o + i * ROWS + r] = ds * w.get(BYTE, base + quant(i) + r);
                }
            }
        }
    }
}

package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B256;
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
 * Q4_K repacked for decode: 32 rows side by side, so one vector lane is one row. The stored
 * kernel ({@link Q4KKernel#dotQ8Wide}) runs one row at a time: its lanes are 32 weights of one
 * sub-block, so every 16-bit product pair must be summed into ints and multiplied by the
 * sub-block's scale before the next. Here each lane is a row: the activation is one broadcast
 * per column, the products of 16 columns add up in 16-bit lanes (at most 16·15·128 = 30,720),
 * and the scales multiply once per half sub-block for 32 rows. JMH, 2048 × 2048, one thread:
 * 2.9 times the stored kernel at 512 bits, 2.2 times at 256 (docs/performance.md). The rows' scales and minimums are unpacked to bytes and
 * their f16 super-scales to floats at load.
 *
 * <p>One group of 32 rows and super-block {@code b} takes {@link #GROUP_BLOCK_BYTES} bytes, in two
 * parts. A group's {@code B} blocks first keep their minimums side by side (384 bytes each, block
 * {@code b} at {@code 384·b}), then their quants and scales (4,480 bytes each, at
 * {@code 384·B + 4480·b}), so the minimums' pass ({@link #minimumsWide}) reads one run of bytes
 * instead of 256 bytes every 4,864, which the hardware prefetchers do not follow. For the same
 * reason each chunk's scales sit just before its quants and are loaded first, so the quants' pass
 * only reads forward (loaded after the quants, the scales cost 11-15% of the decode's rate from
 * memory; docs/performance.md, 2026-12-08):
 * <pre>
 *   minimums part  bytes    0..255   m[j][r]     6-bit minimum of sub-block j of row r
 *                  bytes  256..383   dmin[r]     f32 super-scale of the minimums
 *   quants part    per chunk c (sub-blocks 2c low nibble, 2c+1 high), bytes 1088c ..:
 *                    +0..63          sc[2c..2c+1][r]  6-bit scales of sub-blocks 2c, 2c+1 of row r
 *                    +64..1087       q[l][r]          byte l of the chunk of row r
 *                  bytes 4352..4479  d[r]        f32 super-scale
 * </pre>
 * Rows past the last are zero (their outputs are not written). Per row and super-block the sums
 * are exact ints, {@code acc = fma(Σ sc·Σqx, d·dx, acc)} and {@code min = fma(Σ m·Σx, dmin·dx, min)}
 * in block order, the result {@code acc − min}: each lane does what {@link #rowsScalar} does
 * for its row, so the 512-bit, 256-bit and scalar forms agree bit for bit.
 */
final class Q4KInterleaved {
    /** Rows per group (one per 16-bit lane of a 512-bit vector). */
    static final int ROWS = 32;

    // a block's minimums, at the group's start (see the class notes)
    private static final int MN = 0;
    private static final int DMIN = MN + 8 * ROWS;
    private static final int HEAD_BYTES = DMIN + 4 * ROWS;
    // a block's quants, scales and super-scale, after every block's minimums
    /** A chunk's two sub-blocks' scales (2 × 32 bytes), then its 32 quant bytes × 32 rows. */
    private static final int CHUNK_BYTES = 2 * ROWS + 32 * ROWS;

    private static final int D = 4 * CHUNK_BYTES;
    private static final int BODY_BYTES = D + 4 * ROWS;
    static final int GROUP_BLOCK_BYTES = HEAD_BYTES + BODY_BYTES;

    private Q4KInterleaved() {}

    /** Where group {@code g} (rows 32g ..) of a matrix of {@code blocks} super-blocks a row starts. */
    private static long group(int g, int blocks) {
        return (long) g * blocks * GROUP_BLOCK_BYTES;
    }

    /** Where block {@code b}'s minimums lie in the group at {@code gOff}. */
    private static long head(long gOff, int b) {
        return gOff + (long) b * HEAD_BYTES;
    }

    /** Where block {@code b}'s quants, scales and super-scale lie in the group at {@code gOff} of {@code blocks} blocks. */
    private static long body(long gOff, int blocks, int b) {
        return gOff + (long) blocks * HEAD_BYTES + (long) b * BODY_BYTES;
    }

    /** Offset in a block's body of chunk {@code c}'s quant bytes (byte l of row r at {@code + 32·l + r}). */
    private static long quants(int c) {
        return (long) CHUNK_BYTES * c + 2 * ROWS;
    }

    /** Offset in a block's body of sub-block {@code j}'s 32 scales: beside its chunk's quants. */
    private static long scale(int j) {
        return (long) CHUNK_BYTES * (j >> 1) + ROWS * (j & 1);
    }

    /** Bytes the repacked form of a {@code rows × cols} Q4_K matrix takes. */
    static long bytes(int rows, int cols) {
        return (long) groups(rows) * (cols / 256) * GROUP_BLOCK_BYTES;
    }

    static int groups(int rows) {
        return (rows + ROWS - 1) / ROWS;
    }

    /** Writes stored Q4_K rows {@code [r0, r1)} of {@code src} ({@code rowBytes} apart) into {@code dst} (zeroed). */
    static void repack(MemorySegment src, long rowBytes, int r0, int r1, int cols, MemorySegment dst) {
        int blocks = cols / 256;
        for (int r = r0; r < r1; r++) {
            int g = r / ROWS;
            int lane = r % ROWS;
            long gBase = group(g, blocks);
            for (int b = 0; b < blocks; b++) {
                long o = r * rowBytes + (long) b * Q4KKernel.BYTES;
                long base = body(gBase, blocks, b);
                long mins = head(gBase, b);
                for (int i = 0; i < 128; i++) {
                    dst.set(BYTE, base + quants(i / 32) + (long) (i % 32) * ROWS + lane, src.get(BYTE, o + 16 + i));
                }
                for (int j = 0; j < 8; j++) {
                    dst.set(BYTE, base + scale(j) + lane, (byte) KScales.scale(src, o + 4, j));
                    dst.set(BYTE, mins + MN + j * ROWS + lane, (byte) KScales.min(src, o + 4, j));
                }
                dst.set(FLOAT, base + D + 4L * lane, HalfFloats.f16ToFloat(src.get(SHORT, o)));
                dst.set(FLOAT, mins + DMIN + 4L * lane, HalfFloats.f16ToFloat(src.get(SHORT, o + 2)));
            }
        }
    }

    /**
     * Rows {@code [r0, r0+n)} (r0 a multiple of {@link #ROWS}) of the repacked matrix {@code w}
     * against {@code x}, into {@code out[outOff + r0 ..)}; a group's rows past {@code r0+n} are
     * computed and not written.
     */
    static void rowsWide(
            MemorySegment w,
            QuantizedActivations x,
            int cols,
            float[] out,
            int outOff,
            int r0,
            int n,
            float[] scratch) {
        int blocks = cols / 256;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            long gOff = group(g, blocks);
            minimumsWide(w, gOff, x, blocks, scratch);
            groupWide(w, gOff, x, blocks, scratch, out, outOff + g * ROWS, r0 + n - g * ROWS);
        }
    }

    /** {@link #rowsWide} in 256-bit vectors: each group as two halves of 16 rows. */
    static void rowsNarrow(
            MemorySegment w,
            QuantizedActivations x,
            int cols,
            float[] out,
            int outOff,
            int r0,
            int n,
            float[] scratch) {
        int blocks = cols / 256;
        for (int g = r0 / ROWS; g * ROWS < r0 + n; g++) {
            long base = group(g, blocks);
            int left = r0 + n - g * ROWS;
            minimumsNarrow(w, base, 0, x, blocks, scratch);
            halfNarrow(w, base, 0, x, blocks, scratch, out, outOff + g * ROWS, left);
            if (left > 16) {
                minimumsNarrow(w, base, 16, x, blocks, scratch);
                halfNarrow(w, base, 16, x, blocks, scratch, out, outOff + g * ROWS + 16, left - 16);
            }
        }
    }

    /**
     * The minimums' term of one group's 32 rows, {@code Σ_b fma(Σ_j m·Σx, dmin·dx)} in block
     * order, into {@code scratch[0..32)}: a pass of its own, so that {@link #groupWide} stays
     * inside C2's inlining budget (see the package notes).
     */
    private static void minimumsWide(MemorySegment w, long gOff, QuantizedActivations x, int blocks, float[] scratch) {
        final int[] xs = x.sums;
        final float[] xd = x.d;
        FloatVector min0 = FloatVector.zero(F512);
        FloatVector min1 = FloatVector.zero(F512);
        for (int b = 0; b < blocks; b++) {
            long mo = head(gOff, b) + MN;
            IntVector ms0 = IntVector.zero(I512);
            IntVector ms1 = IntVector.zero(I512);
            for (int j = 0; j < 8; j++) {
                int xj = xs[8 * b + j];
                ms0 = ((IntVector) ByteVector.fromMemorySegment(B128, w, mo + (long) j * ROWS, LE)
                                .convertShape(VectorOperators.ZERO_EXTEND_B2I, I512, 0))
                        .mul(xj)
                        .add(ms0);
                ms1 = ((IntVector) ByteVector.fromMemorySegment(B128, w, mo + (long) j * ROWS + 16, LE)
                                .convertShape(VectorOperators.ZERO_EXTEND_B2I, I512, 0))
                        .mul(xj)
                        .add(ms1);
            }
            long dm = head(gOff, b) + DMIN;
            float dx = xd[b];
            min0 = ((FloatVector) ms0.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F512, w, dm, LE).mul(dx), min0);
            min1 = ((FloatVector) ms1.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F512, w, dm + 64, LE).mul(dx), min1);
        }
        min0.intoArray(scratch, 0);
        min1.intoArray(scratch, 16);
    }

    /** {@link #minimumsWide} for rows {@code lane0 .. lane0+15} in 256-bit vectors, into {@code scratch[0..16)}. */
    private static void minimumsNarrow(
            MemorySegment w, long gOff, int lane0, QuantizedActivations x, int blocks, float[] scratch) {
        final int[] xs = x.sums;
        final float[] xd = x.d;
        FloatVector min0 = FloatVector.zero(F256);
        FloatVector min1 = FloatVector.zero(F256);
        for (int b = 0; b < blocks; b++) {
            long mo = head(gOff, b) + MN + lane0;
            IntVector ms0 = IntVector.zero(I256);
            IntVector ms1 = IntVector.zero(I256);
            for (int j = 0; j < 8; j++) {
                int xj = xs[8 * b + j];
                ms0 = ((IntVector) ByteVector.fromMemorySegment(B64, w, mo + (long) j * ROWS, LE)
                                .convertShape(VectorOperators.ZERO_EXTEND_B2I, I256, 0))
                        .mul(xj)
                        .add(ms0);
                ms1 = ((IntVector) ByteVector.fromMemorySegment(B64, w, mo + (long) j * ROWS + 8, LE)
                                .convertShape(VectorOperators.ZERO_EXTEND_B2I, I256, 0))
                        .mul(xj)
                        .add(ms1);
            }
            long dm = head(gOff, b) + DMIN + 4L * lane0;
            float dx = xd[b];
            min0 = ((FloatVector) ms0.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F256, w, dm, LE).mul(dx), min0);
            min1 = ((FloatVector) ms1.convert(VectorOperators.I2F, 0))
                    .fma(FloatVector.fromMemorySegment(F256, w, dm + 32, LE).mul(dx), min1);
        }
        min0.intoArray(scratch, 0);
        min1.intoArray(scratch, 8);
    }

    /** One group of 32 rows, its minimums' term in {@code minimums[0..32)}; writes the first {@code valid}. */
    private static void groupWide(
            MemorySegment w,
            long gOff,
            QuantizedActivations x,
            int blocks,
            float[] minimums,
            float[] out,
            int outOff,
            int valid) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc0 = FloatVector.zero(F512);
        FloatVector acc1 = FloatVector.zero(F512);
        for (int b = 0; b < blocks; b++) {
            long base = body(gOff, blocks, b);
            IntVector is0 = IntVector.zero(I512);
            IntVector is1 = IntVector.zero(I512);
            for (int c = 0; c < 4; c++) {
                int xo = 256 * b + 64 * c;
                // the chunk's scales first, in address order (class notes); quants(c) and scale(2c) written
                // out: groupWide is past C2's inlining budget (Q6KInterleaved.quant)
                long so = base + (long) CHUNK_BYTES * c;
                IntVector sca = (IntVector) ByteVector.fromMemorySegment(B128, w, so, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I512, 0);
                IntVector tca = (IntVector) ByteVector.fromMemorySegment(B128, w, so + 16, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I512, 0);
                IntVector scb = (IntVector) ByteVector.fromMemorySegment(B128, w, so + ROWS, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I512, 0);
                IntVector tcb = (IntVector) ByteVector.fromMemorySegment(B128, w, so + ROWS + 16, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I512, 0);
                long qo = base + (long) CHUNK_BYTES * c + 2 * ROWS;
                // products of 16 columns each, in 16-bit lanes: a = sub-block 2c, b = 2c+1
                ShortVector a0 = ShortVector.zero(S512);
                ShortVector b0 = ShortVector.zero(S512);
                for (int l = 0; l < 16; l++) {
                    ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B256, w, qo + (long) l * ROWS, LE)
                            .convertShape(VectorOperators.ZERO_EXTEND_B2S, S512, 0);
                    a0 = q.and((short) 0x0F).mul(xq[xo + l]).add(a0);
                    b0 = q.lanewise(VectorOperators.LSHR, 4)
                            .mul(xq[xo + 32 + l])
                            .add(b0);
                }
                ShortVector a1 = ShortVector.zero(S512);
                ShortVector b1 = ShortVector.zero(S512);
                for (int l = 16; l < 32; l++) {
                    ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B256, w, qo + (long) l * ROWS, LE)
                            .convertShape(VectorOperators.ZERO_EXTEND_B2S, S512, 0);
                    a1 = q.and((short) 0x0F).mul(xq[xo + l]).add(a1);
                    b1 = q.lanewise(VectorOperators.LSHR, 4)
                            .mul(xq[xo + 32 + l])
                            .add(b1);
                }
                IntVector sa = ((IntVector) a0.convertShape(VectorOperators.S2I, I512, 0))
                        .add((IntVector) a1.convertShape(VectorOperators.S2I, I512, 0));
                IntVector ta = ((IntVector) a0.convertShape(VectorOperators.S2I, I512, 1))
                        .add((IntVector) a1.convertShape(VectorOperators.S2I, I512, 1));
                IntVector sb = ((IntVector) b0.convertShape(VectorOperators.S2I, I512, 0))
                        .add((IntVector) b1.convertShape(VectorOperators.S2I, I512, 0));
                IntVector tb = ((IntVector) b0.convertShape(VectorOperators.S2I, I512, 1))
                        .add((IntVector) b1.convertShape(VectorOperators.S2I, I512, 1));
                is0 = sa.mul(sca).add(sb.mul(scb)).add(is0);
                is1 = ta.mul(tca).add(tb.mul(tcb)).add(is1);
            }
            float dx = xd[b];
            FloatVector d0 =
                    FloatVector.fromMemorySegment(F512, w, base + D, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F512, w, base + D + 64, LE).mul(dx);
            acc0 = ((FloatVector) is0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) is1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
        }
        FloatVector r0 = acc0.sub(FloatVector.fromArray(F512, minimums, 0));
        FloatVector r1 = acc1.sub(FloatVector.fromArray(F512, minimums, 16));
        if (valid >= ROWS) {
            r0.intoArray(out, outOff);
            r1.intoArray(out, outOff + 16);
        } else {
            r0.intoArray(out, outOff, F512.indexInRange(0, valid));
            r1.intoArray(out, outOff + 16, F512.indexInRange(16, valid));
        }
    }

    /** Rows {@code lane0 .. lane0+15} of one group in 256-bit vectors, minimums in {@code minimums[0..16)}; writes the first {@code valid}. */
    private static void halfNarrow(
            MemorySegment w,
            long gOff,
            int lane0,
            QuantizedActivations x,
            int blocks,
            float[] minimums,
            float[] out,
            int outOff,
            int valid) {
        final short[] xq = x.q;
        final float[] xd = x.d;
        FloatVector acc0 = FloatVector.zero(F256);
        FloatVector acc1 = FloatVector.zero(F256);
        for (int b = 0; b < blocks; b++) {
            long base = body(gOff, blocks, b);
            IntVector is0 = IntVector.zero(I256);
            IntVector is1 = IntVector.zero(I256);
            for (int c = 0; c < 4; c++) {
                int xo = 256 * b + 64 * c;
                // the scales first, in address order (see groupWide)
                long so = base + (long) CHUNK_BYTES * c + lane0;
                IntVector sca = (IntVector) ByteVector.fromMemorySegment(B64, w, so, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I256, 0);
                IntVector tca = (IntVector) ByteVector.fromMemorySegment(B64, w, so + 8, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I256, 0);
                IntVector scb = (IntVector) ByteVector.fromMemorySegment(B64, w, so + ROWS, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I256, 0);
                IntVector tcb = (IntVector) ByteVector.fromMemorySegment(B64, w, so + ROWS + 8, LE)
                        .convertShape(VectorOperators.ZERO_EXTEND_B2I, I256, 0);
                long qo = base + (long) CHUNK_BYTES * c + 2 * ROWS + lane0;
                ShortVector a0 = ShortVector.zero(S256);
                ShortVector b0 = ShortVector.zero(S256);
                for (int l = 0; l < 16; l++) {
                    ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B128, w, qo + (long) l * ROWS, LE)
                            .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
                    a0 = q.and((short) 0x0F).mul(xq[xo + l]).add(a0);
                    b0 = q.lanewise(VectorOperators.LSHR, 4)
                            .mul(xq[xo + 32 + l])
                            .add(b0);
                }
                ShortVector a1 = ShortVector.zero(S256);
                ShortVector b1 = ShortVector.zero(S256);
                for (int l = 16; l < 32; l++) {
                    ShortVector q = (ShortVector) ByteVector.fromMemorySegment(B128, w, qo + (long) l * ROWS, LE)
                            .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
                    a1 = q.and((short) 0x0F).mul(xq[xo + l]).add(a1);
                    b1 = q.lanewise(VectorOperators.LSHR, 4)
                            .mul(xq[xo + 32 + l])
                            .add(b1);
                }
                IntVector sa = ((IntVector) a0.convertShape(VectorOperators.S2I, I256, 0))
                        .add((IntVector) a1.convertShape(VectorOperators.S2I, I256, 0));
                IntVector ta = ((IntVector) a0.convertShape(VectorOperators.S2I, I256, 1))
                        .add((IntVector) a1.convertShape(VectorOperators.S2I, I256, 1));
                IntVector sb = ((IntVector) b0.convertShape(VectorOperators.S2I, I256, 0))
                        .add((IntVector) b1.convertShape(VectorOperators.S2I, I256, 0));
                IntVector tb = ((IntVector) b0.convertShape(VectorOperators.S2I, I256, 1))
                        .add((IntVector) b1.convertShape(VectorOperators.S2I, I256, 1));
                is0 = sa.mul(sca).add(sb.mul(scb)).add(is0);
                is1 = ta.mul(tca).add(tb.mul(tcb)).add(is1);
            }
            float dx = xd[b];
            long dOff = base + D + 4L * lane0;
            FloatVector d0 = FloatVector.fromMemorySegment(F256, w, dOff, LE).mul(dx);
            FloatVector d1 =
                    FloatVector.fromMemorySegment(F256, w, dOff + 32, LE).mul(dx);
            acc0 = ((FloatVector) is0.convert(VectorOperators.I2F, 0)).fma(d0, acc0);
            acc1 = ((FloatVector) is1.convert(VectorOperators.I2F, 0)).fma(d1, acc1);
        }
        FloatVector r0 = acc0.sub(FloatVector.fromArray(F256, minimums, 0));
        FloatVector r1 = acc1.sub(FloatVector.fromArray(F256, minimums, 8));
        if (valid >= 16) {
            r0.intoArray(out, outOff);
            r1.intoArray(out, outOff + 8);
        } else {
            r0.intoArray(out, outOff, F256.indexInRange(0, valid));
            r1.intoArray(out, outOff + 8, F256.indexInRange(8, valid));
        }
    }

    /** Scalar twin of {@link #rowsWide}: each row's exact block sums and its two float sums in block order. */
    static void rowsScalar(MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n) {
        int blocks = cols / 256;
        for (int r = r0; r < r0 + n; r++) {
            int lane = r % ROWS;
            long gOff = group(r / ROWS, blocks);
            float acc = 0f;
            float min = 0f;
            for (int b = 0; b < blocks; b++) {
                long base = body(gOff, blocks, b);
                long mins = head(gOff, b);
                int isum = 0;
                int msum = 0;
                for (int j = 0; j < 8; j++) {
                    int shift = 4 * (j % 2);
                    long qo = base + quants(j / 2) + lane;
                    int s = 0;
                    for (int l = 0; l < 32; l++) {
                        int q = ((w.get(BYTE, qo + (long) l * ROWS) & 0xFF) >>> shift) & 0x0F;
                        s += q * x.q[256 * b + 32 * j + l];
                    }
                    isum += (w.get(BYTE, base + scale(j) + lane) & 0xFF) * s;
                    msum += (w.get(BYTE, mins + MN + j * ROWS + lane) & 0xFF) * x.sums[8 * b + j];
                }
                float dx = x.d[b];
                acc = Math.fma((float) isum, w.get(FLOAT, base + D + 4L * lane) * dx, acc);
                min = Math.fma((float) msum, w.get(FLOAT, mins + DMIN + 4L * lane) * dx, min);
            }
            out[outOff + r] = acc - min;
        }
    }

    /**
     * Super-blocks {@code [b0, b0+nb)} of group {@code g} of the repacked matrix {@code w}
     * ({@code blocks} a row) unpacked for {@link Q4KIntegerTile}, from offset 0: {@code wq[k·32 +
     * r] = 8 − q} as shorts (column k of the range), per sub-block j {@code sc[j·32 + r]} and
     * {@code m[j·32 + r]}, per super-block {@code d[b·32 + r]} and {@code dmin[b·32 + r]};
     * {@code vectorized} false: scalar loads, the same values.
     */
    static void unpackGroup(
            boolean vectorized,
            MemorySegment w,
            int g,
            int blocks,
            int b0,
            int nb,
            short[] wq,
            int[] sc,
            int[] m,
            float[] d,
            float[] dmin) {
        long gOff = group(g, blocks);
        for (int b = 0; b < nb; b++) {
            long base = body(gOff, blocks, b0 + b);
            long mins = head(gOff, b0 + b);
            int o = 256 * b * ROWS;
            for (int c = 0; c < 4; c++) {
                for (int l = 0; l < 32; l++) {
                    long q = base + quants(c) + (long) l * ROWS;
                    int lo = o + (64 * c + l) * ROWS;
                    int hi = lo + 32 * ROWS;
                    if (vectorized) {
                        unpackQuants(w, q, wq, lo, hi);
                    } else {
                        for (int r = 0; r < ROWS; r++) {
                            int v = w.get(BYTE, q + r) & 0xFF;
                            wq[lo + r] = (short) (8 - (v & 0x0F));
                            wq[hi + r] = (short) (8 - (v >>> 4));
                        }
                    }
                }
            }
            for (int j = 0; j < 8; j++) {
                for (int r = 0; r < ROWS; r++) {
                    sc[(8 * b + j) * ROWS + r] = w.get(BYTE, base + scale(j) + r) & 0xFF;
                    m[(8 * b + j) * ROWS + r] = w.get(BYTE, mins + MN + (long) j * ROWS + r) & 0xFF;
                }
            }
            MemorySegment.copy(w, FLOAT, base + D, d, b * ROWS, ROWS);
            MemorySegment.copy(w, FLOAT, mins + DMIN, dmin, b * ROWS, ROWS);
        }
    }

    /** One quant byte of 32 rows at {@code q} as {@code 8 − low nibble} at {@code lo} and {@code 8 − high} at {@code hi}. */
    private static void unpackQuants(MemorySegment w, long q, short[] wq, int lo, int hi) {
        if (Layouts.WIDE) {
            ShortVector v = (ShortVector)
                    ByteVector.fromMemorySegment(B256, w, q, LE).convertShape(VectorOperators.ZERO_EXTEND_B2S, S512, 0);
            ShortVector eight = ShortVector.broadcast(S512, (short) 8);
            eight.sub(v.and((short) 0x0F)).intoArray(wq, lo);
            eight.sub(v.lanewise(VectorOperators.LSHR, 4)).intoArray(wq, hi);
            return;
        }
        for (int h = 0; h < ROWS; h += 16) {
            ShortVector v = (ShortVector) ByteVector.fromMemorySegment(B128, w, q + h, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2S, S256, 0);
            ShortVector eight = ShortVector.broadcast(S256, (short) 8);
            eight.sub(v.and((short) 0x0F)).intoArray(wq, lo + h);
            eight.sub(v.lanewise(VectorOperators.LSHR, 4)).intoArray(wq, hi + h);
        }
    }

    /**
     * Columns {@code [k0, k0+kn)} (multiples of 256) of group {@code g} of the repacked matrix
     * {@code w} as floats, {@code dst[(k − k0)·32 + r]}: per row {@code q·(d·sc) − dmin·m}, the
     * stored dequantizer's operations ({@link Q4KKernel#dequantize}), so the same values.
     */
    static void dequantizeGroup(MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        int blocks = cols / 256;
        long gBase = group(g, blocks);
        for (int b = k0 / 256, end = (k0 + kn) / 256; b < end; b++) {
            long base = body(gBase, blocks, b);
            long mins = head(gBase, b);
            int o = (256 * b - k0) * ROWS;
            for (int h = 0; h < 2; h++) {
                FloatVector d = FloatVector.fromMemorySegment(F512, w, base + D + 64L * h, LE);
                FloatVector dmin = FloatVector.fromMemorySegment(F512, w, mins + DMIN + 64L * h, LE);
                for (int c = 0; c < 4; c++) {
                    FloatVector d1 = d.mul(bytesAsFloats(w, base + scale(2 * c) + 16 * h));
                    FloatVector m1 = dmin.mul(bytesAsFloats(w, mins + MN + (2 * c) * ROWS + 16 * h));
                    FloatVector d2 = d.mul(bytesAsFloats(w, base + scale(2 * c + 1) + 16 * h));
                    FloatVector m2 = dmin.mul(bytesAsFloats(w, mins + MN + (2 * c + 1) * ROWS + 16 * h));
                    for (int l = 0; l < 32; l++) {
                        ByteVector q =
                                ByteVector.fromMemorySegment(B128, w, base + quants(c) + (long) l * ROWS + 16 * h, LE);
                        ((FloatVector) q.and((byte) 0x0F).convertShape(VectorOperators.B2F, F512, 0))
                                .mul(d1)
                                .sub(m1)
                                .intoArray(dst, o + (64 * c + l) * ROWS + 16 * h);
                        ((FloatVector) q.lanewise(VectorOperators.LSHR, 4).convertShape(VectorOperators.B2F, F512, 0))
                                .mul(d2)
                                .sub(m2)
                                .intoArray(dst, o + (64 * c + 32 + l) * ROWS + 16 * h);
                    }
                }
            }
        }
    }

    /** 16 unsigned bytes (6-bit scales or minimums, so the sign bit is clear) as floats. */
    private static FloatVector bytesAsFloats(MemorySegment w, long offset) {
        return (FloatVector)
                ByteVector.fromMemorySegment(B128, w, offset, LE).convertShape(VectorOperators.B2F, F512, 0);
    }

    /** Scalar twin of {@link #dequantizeGroup}. */
    static void dequantizeGroupScalar(MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        int blocks = cols / 256;
        long gBase = group(g, blocks);
        for (int b = k0 / 256, end = (k0 + kn) / 256; b < end; b++) {
            long base = body(gBase, blocks, b);
            long mins = head(gBase, b);
            int o = (256 * b - k0) * ROWS;
            for (int r = 0; r < ROWS; r++) {
                float d = w.get(FLOAT, base + D + 4L * r);
                float dmin = w.get(FLOAT, mins + DMIN + 4L * r);
                for (int c = 0; c < 4; c++) {
                    float d1 = d * w.get(BYTE, base + scale(2 * c) + r);
                    float m1 = dmin * w.get(BYTE, mins + MN + (2 * c) * ROWS + r);
                    float d2 = d * w.get(BYTE, base + scale(2 * c + 1) + r);
                    float m2 = dmin * w.get(BYTE, mins + MN + (2 * c + 1) * ROWS + r);
                    for (int l = 0; l < 32; l++) {
                        int q = w.get(BYTE, base + quants(c) + (long) l * ROWS + r) & 0xFF;
                        dst[o + (64 * c + l) * ROWS + r] = d1 * (q & 0x0F) - m1;
                        dst[o + (64 * c + 32 + l) * ROWS + r] = d2 * (q >>> 4) - m2;
                    }
                }
            }
        }
    }
}

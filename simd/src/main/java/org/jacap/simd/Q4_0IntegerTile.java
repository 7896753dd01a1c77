package org.jacap.simd;

import static org.jacap.simd.Layouts.B128;
import static org.jacap.simd.Layouts.B256;
import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.F512;
import static org.jacap.simd.Layouts.FLOAT;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.S128;
import static org.jacap.simd.Layouts.S256;
import static org.jacap.simd.Layouts.S512;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.jacap.gguf.GgmlType;

/**
 * Q4_0 prefill on 16-bit integer lanes: the repacked copy ({@link Q4BlockInterleaved}) against
 * the tokens' Q8_0 activations, 8 rows x {@link #TOKENS} tokens a tile. The float tile
 * ({@link FloatLoops#tile8x32T}) does 16 multiply-adds per instruction on dequantized weights; here
 * a 16-bit multiply and add do 32, and on the 2-core Zen 4 a probe of both tiles ran at 80 and 58
 * billion multiply-adds a second.
 *
 * <p>Vectors run along tokens: per column, one load of each token vector and one broadcast weight
 * per row. A block of 32 columns sums exactly in 16 bits ({@code |Σ (q − 8)·x| ≤ 32·8·127 =
 * 32,512}); then, per row and token, {@code acc = fma(sum, dx·d, acc)} in block order, what the
 * decode kernel ({@link Q4BlockInterleaved#rowsScalar}) does for that token: prefill and decode give
 * the same bits, and so do the 512-bit, 256-bit and scalar forms.
 *
 * <p>Layouts (per group of {@link #TOKENS} tokens): activations {@code q[k·TOKENS + t]} as shorts
 * and {@code d[b·TOKENS + t]}; weights of one row group and column chunk {@code w[k·32 + r]} as
 * {@code q − 8} and {@code wd[b·32 + r]}; sums {@code acc[r·TOKENS + t]}.
 */
final class Q4_0IntegerTile {
    private Q4_0IntegerTile() {}

    private static final VectorSpecies<Short> S = Layouts.WIDE ? S512 : S256;
    /** Half a short vector, widened to one float vector in the flush. */
    private static final VectorSpecies<Short> SH = Layouts.WIDE ? S256 : S128;

    private static final VectorSpecies<Float> F = Layouts.WIDE ? F512 : F256;
    private static final VectorSpecies<Byte> B = Layouts.WIDE ? B256 : B128;
    private static final int LANES = S.length();
    /** Tokens of a tile: two short vectors (64 at 512 bits, 32 at 256). */
    static final int TOKENS = 2 * LANES;
    /** Rows of a tile. */
    static final int ROWS = 8;
    /** Rows of a repacked group. */
    static final int GROUP = Q4BlockInterleaved.ROWS;

    private static final int D = 16 * GROUP;

    /** Shorts of {@link #tile}'s scratch: its 16 block sums on their way to floats. */
    static final int SCRATCH = ROWS * TOKENS;

    /**
     * Tokens {@code [t0, t0+TOKENS)} of {@code x} ({@code cols} apart; those past {@code batch} as
     * zeros) quantized to {@code type} (Q8_0 for this tile, Q8_K for {@link Q4KIntegerTile}) by
     * {@code scratch} ({@link QuantizedActivations#quantize}, or its scalar twin) into token group
     * {@code t0 / TOKENS} of {@code q}, {@code d} (one scale per block of the type) and {@code s}
     * (the sums per 32, which Q4_K's minimums take).
     */
    static void pack(
            QuantizedActivations scratch,
            boolean vectorized,
            VecDotType type,
            float[] x,
            int xOff,
            int cols,
            int t0,
            int batch,
            short[] q,
            float[] d,
            int[] s) {
        int blocks = cols / type.blockSize();
        int subs = cols / 32;
        int qBase = t0 * cols; // group t0/TOKENS starts at (t0/TOKENS)·cols·TOKENS
        int dBase = t0 / TOKENS * blocks * TOKENS;
        int sBase = t0 / TOKENS * subs * TOKENS;
        for (int t = 0; t < TOKENS; t++) {
            boolean real = t0 + t < batch;
            if (real && vectorized) {
                scratch.quantize(type, x, xOff + (t0 + t) * cols, cols);
            } else if (real) {
                scratch.quantizeScalar(type, x, xOff + (t0 + t) * cols, cols);
            }
            for (int k = 0; k < cols; k++) {
                q[qBase + k * TOKENS + t] = real ? scratch.q[k] : 0;
            }
            for (int b = 0; b < blocks; b++) {
                d[dBase + b * TOKENS + t] = real ? scratch.d[b] : 0f;
            }
            for (int j = 0; j < subs; j++) {
                s[sBase + j * TOKENS + t] = real ? scratch.sums[j] : 0;
            }
        }
    }

    /**
     * Blocks {@code [b0, b0+nb)} of row group {@code g} of the repacked Q4_0 matrix {@code w}
     * ({@code blocks} a row) into {@code wq} ({@code q − 8}) and {@code wd}, from offset 0.
     */
    static void unpack(MemorySegment w, int g, int blocks, int b0, int nb, short[] wq, float[] wd) {
        int gb = Q4BlockInterleaved.groupBlockBytes(GgmlType.Q4_0);
        int bl = B.length();
        for (int b = 0; b < nb; b++) {
            long base = ((long) g * blocks + b0 + b) * gb;
            int o = 32 * b * GROUP;
            for (int l = 0; l < 16; l++) {
                for (int r = 0; r < GROUP; r += bl) {
                    ShortVector v = (ShortVector) ByteVector.fromMemorySegment(B, w, base + (long) l * GROUP + r, LE)
                            .convertShape(VectorOperators.ZERO_EXTEND_B2S, S, 0);
                    v.and((short) 0x0F).sub((short) 8).intoArray(wq, o + l * GROUP + r);
                    v.lanewise(VectorOperators.LSHR, 4).sub((short) 8).intoArray(wq, o + (l + 16) * GROUP + r);
                }
            }
            MemorySegment.copy(w, FLOAT, base + D, wd, b * GROUP, GROUP);
        }
    }

    /** Scalar twin of {@link #unpack}. */
    static void unpackScalar(MemorySegment w, int g, int blocks, int b0, int nb, short[] wq, float[] wd) {
        int gb = Q4BlockInterleaved.groupBlockBytes(GgmlType.Q4_0);
        for (int b = 0; b < nb; b++) {
            long base = ((long) g * blocks + b0 + b) * gb;
            int o = 32 * b * GROUP;
            for (int l = 0; l < 16; l++) {
                for (int r = 0; r < GROUP; r++) {
                    int v = w.get(BYTE, base + (long) l * GROUP + r) & 0xFF;
                    wq[o + l * GROUP + r] = (short) ((v & 0x0F) - 8);
                    wq[o + (l + 16) * GROUP + r] = (short) ((v >>> 4) - 8);
                }
            }
            for (int r = 0; r < GROUP; r++) {
                wd[b * GROUP + r] = w.get(FLOAT, base + D + 4L * r);
            }
        }
    }

    /** An 8-row tile over whole blocks, {@link #tile}'s form: this one or {@link Q8_0NarrowTile#tile}. */
    @FunctionalInterface
    interface BlockTile {
        void run(
                short[] wq,
                int wOff,
                float[] wd,
                int dOff,
                short[] xq,
                int xqOff,
                float[] xd,
                int xdOff,
                int nb,
                float[] acc,
                int accOff,
                short[] scratch);
    }

    /**
     * 8 rows of the unpacked weights ({@code wq} from {@code wOff} = their column 0, {@code wd}
     * from {@code dOff} = their block 0) against one token group ({@code xq} from {@code xqOff} =
     * its first column, {@code xd} from {@code xdOff} = its first block) over {@code nb} blocks,
     * continuing the sums in {@code acc[accOff + r·TOKENS + t]}. {@code scratch} holds {@link
     * #SCRATCH} shorts.
     */
    static void tile(
            short[] wq,
            int wOff,
            float[] wd,
            int dOff,
            short[] xq,
            int xqOff,
            float[] xd,
            int xdOff,
            int nb,
            float[] acc,
            int accOff,
            short[] scratch) {
        for (int b = 0; b < nb; b++) {
            blockSums(wq, wOff, xq, xqOff, 32 * b, 32, scratch, 0);
            int fl = F.length();
            int xdb = xdOff + b * TOKENS;
            for (int r = 0; r < ROWS; r++) {
                float d = wd[dOff + b * GROUP + r];
                for (int p = 0; p < TOKENS; p += fl) {
                    int a = accOff + r * TOKENS + p;
                    FloatVector sum = (FloatVector)
                            ShortVector.fromArray(SH, scratch, r * TOKENS + p).convertShape(VectorOperators.S2F, F, 0);
                    sum.fma(FloatVector.fromArray(F, xd, xdb + p).mul(d), FloatVector.fromArray(F, acc, a))
                            .intoArray(acc, a);
                }
            }
        }
    }

    /**
     * The 16-bit sums over columns {@code [k0, k0+n)} of 8 rows x {@link #TOKENS} tokens,
     * {@code Σ wq[wOff + k·32 + r]·xq[xqOff + k·TOKENS + t]} (wrapping: the callers' ranges keep
     * them within a short) into {@code scratch[so + r·TOKENS + t]}. Shared by the integer tiles;
     * its vectors never cross a call, so it boxes nothing inlined or not.
     */
    static void blockSums(short[] wq, int wOff, short[] xq, int xqOff, int k0, int n, short[] scratch, int so) {
        ShortVector c0a = ShortVector.zero(S), c1a = c0a, c2a = c0a, c3a = c0a;
        ShortVector c4a = c0a, c5a = c0a, c6a = c0a, c7a = c0a;
        ShortVector c0b = c0a, c1b = c0a, c2b = c0a, c3b = c0a;
        ShortVector c4b = c0a, c5b = c0a, c6b = c0a, c7b = c0a;
        for (int k = k0, end = k0 + n; k < end; k++) {
            int xo = xqOff + k * TOKENS;
            ShortVector x0 = ShortVector.fromArray(S, xq, xo);
            ShortVector x1 = ShortVector.fromArray(S, xq, xo + LANES);
            int wk = wOff + k * GROUP;
            ShortVector v = ShortVector.broadcast(S, wq[wk]);
            c0a = x0.mul(v).add(c0a);
            c0b = x1.mul(v).add(c0b);
            v = ShortVector.broadcast(S, wq[wk + 1]);
            c1a = x0.mul(v).add(c1a);
            c1b = x1.mul(v).add(c1b);
            v = ShortVector.broadcast(S, wq[wk + 2]);
            c2a = x0.mul(v).add(c2a);
            c2b = x1.mul(v).add(c2b);
            v = ShortVector.broadcast(S, wq[wk + 3]);
            c3a = x0.mul(v).add(c3a);
            c3b = x1.mul(v).add(c3b);
            v = ShortVector.broadcast(S, wq[wk + 4]);
            c4a = x0.mul(v).add(c4a);
            c4b = x1.mul(v).add(c4b);
            v = ShortVector.broadcast(S, wq[wk + 5]);
            c5a = x0.mul(v).add(c5a);
            c5b = x1.mul(v).add(c5b);
            v = ShortVector.broadcast(S, wq[wk + 6]);
            c6a = x0.mul(v).add(c6a);
            c6b = x1.mul(v).add(c6b);
            v = ShortVector.broadcast(S, wq[wk + 7]);
            c7a = x0.mul(v).add(c7a);
            c7b = x1.mul(v).add(c7b);
        }
        // through memory, not a helper per vector: a call past C2's inlining budget boxes its argument
        c0a.intoArray(scratch, so);
        c0b.intoArray(scratch, so + LANES);
        c1a.intoArray(scratch, so + TOKENS);
        c1b.intoArray(scratch, so + TOKENS + LANES);
        c2a.intoArray(scratch, so + 2 * TOKENS);
        c2b.intoArray(scratch, so + 2 * TOKENS + LANES);
        c3a.intoArray(scratch, so + 3 * TOKENS);
        c3b.intoArray(scratch, so + 3 * TOKENS + LANES);
        c4a.intoArray(scratch, so + 4 * TOKENS);
        c4b.intoArray(scratch, so + 4 * TOKENS + LANES);
        c5a.intoArray(scratch, so + 5 * TOKENS);
        c5b.intoArray(scratch, so + 5 * TOKENS + LANES);
        c6a.intoArray(scratch, so + 6 * TOKENS);
        c6b.intoArray(scratch, so + 6 * TOKENS + LANES);
        c7a.intoArray(scratch, so + 7 * TOKENS);
        c7b.intoArray(scratch, so + 7 * TOKENS + LANES);
    }

    /** Scalar twin of {@link #tile}: each row and token's exact block sums, then its float sums in block order. */
    static void tileScalar(
            short[] wq,
            int wOff,
            float[] wd,
            int dOff,
            short[] xq,
            int xqOff,
            float[] xd,
            int xdOff,
            int nb,
            float[] acc,
            int accOff) {
        for (int b = 0; b < nb; b++) {
            for (int r = 0; r < ROWS; r++) {
                float d = wd[dOff + b * GROUP + r];
                for (int t = 0; t < TOKENS; t++) {
                    int s = 0;
                    for (int k = 32 * b; k < 32 * b + 32; k++) {
                        s += wq[wOff + k * GROUP + r] * xq[xqOff + k * TOKENS + t];
                    }
                    int a = accOff + r * TOKENS + t;
                    acc[a] = Math.fma((float) s, xd[xdOff + b * TOKENS + t] * d, acc[a]);
                }
            }
        }
    }
}

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
import static org.jacap.simd.Layouts.S128;
import static org.jacap.simd.Layouts.S256;
import static org.jacap.simd.Layouts.S512;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Prefill of a Q8_0 matrix whose quants all lie in {@code −16..16} ({@link WeightMatrix#narrowQuants}:
 * a Q5_0 matrix widened at load, {@link Widening}) on 16-bit integer lanes, as {@link Q4_0IntegerTile}
 * does for Q4_0: the repacked copy ({@link Q8_0Interleaved}) against the tokens' Q8_0 activations,
 * 8 rows x {@link Q4_0IntegerTile#TOKENS} tokens a tile, vectors along tokens.
 *
 * <p>Sixteen columns sum exactly in 16 bits ({@code |Σ q·x| ≤ 16·16·127 = 32,512}), so a block of
 * 32 is two such sums, added as ints; then, per row and token, {@code acc = fma(sum, dx·d, acc)} in
 * block order: the decode kernel's arithmetic ({@link Q8_0Interleaved#rowsScalar}), so a prompt's
 * logits are its tokens' decode bits, at either width and in the scalar twins ({@link
 * #unpackScalar}; the tile's is {@link Q4_0IntegerTile#tileScalar}, whose exact block sums do not
 * depend on the weights' range). A full-range Q8_0 matrix would overflow after two columns and
 * stays on the float tile.
 */
final class Q8_0NarrowTile {
    private Q8_0NarrowTile() {}

    /** A column of a group's 32 quant bytes (one load at 512 bits, two at 256), widened to {@link #S}. */
    private static final VectorSpecies<Byte> B = Layouts.WIDE ? B256 : B128;

    private static final VectorSpecies<Short> S = Layouts.WIDE ? S512 : S256;
    private static final VectorSpecies<Short> SH = Layouts.WIDE ? S256 : S128;
    private static final VectorSpecies<Integer> I = Layouts.WIDE ? I512 : I256;
    private static final VectorSpecies<Float> F = Layouts.WIDE ? F512 : F256;
    private static final int TOKENS = Q4_0IntegerTile.TOKENS;
    private static final int ROWS = Q4_0IntegerTile.ROWS;
    private static final int GROUP = Q8_0Interleaved.ROWS;
    /** Shorts of {@link #tile}'s scratch: two halves' sums of a tile. */
    static final int SCRATCH = 2 * Q4_0IntegerTile.SCRATCH;

    /**
     * Blocks {@code [b0, b0+nb)} of row group {@code g} of the repacked Q8_0 matrix {@code w}
     * ({@code blocks} a row) into {@code wq} (column-major, {@code wq[k·32 + r]}) and {@code wd},
     * from offset 0.
     */
    static void unpack(MemorySegment w, int g, int blocks, int b0, int nb, short[] wq, float[] wd) {
        for (int j = 0; j < nb; j++) {
            long base = ((long) g * blocks + b0 + j) * Q8_0Interleaved.GROUP_BLOCK_BYTES;
            for (int l = 0; l < 32; l++) {
                for (int r = 0; r < GROUP; r += B.length()) {
                    ((ShortVector) ByteVector.fromMemorySegment(B, w, base + (long) l * GROUP + r, LE)
                                    .convertShape(VectorOperators.B2S, S, 0))
                            .intoArray(wq, (32 * j + l) * GROUP + r);
                }
            }
            MemorySegment.copy(w, FLOAT, base + 32L * GROUP, wd, j * GROUP, GROUP);
        }
    }

    /** Scalar twin of {@link #unpack}. */
    static void unpackScalar(MemorySegment w, int g, int blocks, int b0, int nb, short[] wq, float[] wd) {
        for (int j = 0; j < nb; j++) {
            long base = ((long) g * blocks + b0 + j) * Q8_0Interleaved.GROUP_BLOCK_BYTES;
            for (int l = 0; l < 32; l++) {
                for (int r = 0; r < GROUP; r++) {
                    wq[(32 * j + l) * GROUP + r] = w.get(BYTE, base + (long) l * GROUP + r);
                }
            }
            for (int r = 0; r < GROUP; r++) {
                wd[j * GROUP + r] = w.get(FLOAT, base + 32L * GROUP + 4L * r);
            }
        }
    }

    /**
     * 8 rows of the unpacked weights against one token group over {@code nb} blocks, continuing the
     * sums in {@code acc[accOff + r·TOKENS + t]}; the arguments as {@link Q4_0IntegerTile#tile}'s,
     * {@code scratch} of {@link #SCRATCH} shorts.
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
        int half = Q4_0IntegerTile.SCRATCH;
        int il = I.length();
        for (int b = 0; b < nb; b++) {
            Q4_0IntegerTile.blockSums(wq, wOff, xq, xqOff, 32 * b, 16, scratch, 0);
            Q4_0IntegerTile.blockSums(wq, wOff, xq, xqOff, 32 * b + 16, 16, scratch, half);
            int xdb = xdOff + b * TOKENS;
            for (int r = 0; r < ROWS; r++) {
                float d = wd[dOff + b * GROUP + r];
                for (int p = 0; p < TOKENS; p += il) {
                    int s = r * TOKENS + p;
                    IntVector sum = ((IntVector)
                                    ShortVector.fromArray(SH, scratch, s).convertShape(VectorOperators.S2I, I, 0))
                            .add((IntVector) ShortVector.fromArray(SH, scratch, half + s)
                                    .convertShape(VectorOperators.S2I, I, 0));
                    int a = accOff + s;
                    ((FloatVector) sum.convert(VectorOperators.I2F, 0))
                            .fma(FloatVector.fromArray(F, xd, xdb + p).mul(d), FloatVector.fromArray(F, acc, a))
                            .intoArray(acc, a);
                }
            }
        }
    }
}

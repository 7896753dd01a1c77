package org.jacap.simd;

import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.F512;
import static org.jacap.simd.Layouts.I256;
import static org.jacap.simd.Layouts.I512;
import static org.jacap.simd.Layouts.S128;
import static org.jacap.simd.Layouts.S256;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Q4_K prefill on 16-bit integer lanes, as {@link Q4_0IntegerTile} for Q4_0: the repacked copy
 * ({@link Q4KInterleaved#unpackGroup}) against the tokens' Q8_K activations, 8 rows x
 * {@link Q4_0IntegerTile#TOKENS} tokens a tile, vectors along tokens.
 *
 * <p>The weights are unpacked as {@code 8 − q} ({@code −7..8}): with activations in
 * {@code −128..127} a sub-block of 32 columns then sums exactly in 16 bits ({@code −32,768 ..
 * 32,512}), where {@code q} itself ({@code 0..15}) would overflow after 17 columns. Per sub-block
 * {@code Σ q·x = 8·Σx − Σ (8 − q)·x} and {@code isum += sc·Σ q·x} in ints; per super-block
 * {@code acc = fma(isum, dx·d, acc)} and {@code min = fma(Σ m·Σx, dx·dmin, min)}; the product is
 * {@code acc − min}, what the decode kernel ({@link Q4KInterleaved#rowsScalar}) gives that token,
 * bit for bit, in every form.
 *
 * <p>Activation layouts per token group: {@code q[k·TOKENS + t]}, super-block scales
 * {@code d[b·TOKENS + t]}, sub-block sums {@code s[j·TOKENS + t]} ({@link Q4_0IntegerTile#pack}).
 */
final class Q4KIntegerTile {
    private Q4KIntegerTile() {}

    private static final VectorSpecies<Short> SH = Layouts.WIDE ? S256 : S128;
    private static final VectorSpecies<Integer> I = Layouts.WIDE ? I512 : I256;
    private static final VectorSpecies<Float> F = Layouts.WIDE ? F512 : F256;
    static final int TOKENS = Q4_0IntegerTile.TOKENS;
    static final int ROWS = Q4_0IntegerTile.ROWS;
    private static final int GROUP = Q4_0IntegerTile.GROUP;
    /** Shorts of {@link #tile}'s scratch (its block sums on their way to ints). */
    static final int SCRATCH = ROWS * TOKENS;
    /** Ints of {@link #tile}'s super-block sums. */
    static final int SUMS = ROWS * TOKENS;

    /**
     * 8 rows of the unpacked weights ({@code wq} from {@code wOff} = their first column;
     * {@code sc}, {@code m} from {@code sOff} = their first sub-block; {@code d}, {@code dmin}
     * from {@code dOff} = their first super-block) against one token group ({@code xq} from
     * {@code xqOff}, {@code xd} from {@code xdOff}, {@code xs} from {@code xsOff}) over {@code nb}
     * super-blocks, continuing {@code acc} and {@code min} at {@code accOff + r·TOKENS + t}.
     */
    static void tile(
            short[] wq,
            int wOff,
            int[] sc,
            int[] m,
            int sOff,
            float[] d,
            float[] dmin,
            int dOff,
            short[] xq,
            int xqOff,
            float[] xd,
            int xdOff,
            int[] xs,
            int xsOff,
            int nb,
            float[] acc,
            float[] min,
            int accOff,
            short[] scratch,
            int[] isum) {
        int il = I.length();
        for (int b = 0; b < nb; b++) {
            for (int j = 0; j < 8; j++) {
                Q4_0IntegerTile.blockSums(wq, wOff, xq, xqOff, 256 * b + 32 * j, 32, scratch, 0);
                int xsj = xsOff + (8 * b + j) * TOKENS;
                for (int r = 0; r < ROWS; r++) {
                    int scale = sc[sOff + (8 * b + j) * GROUP + r];
                    for (int p = 0; p < TOKENS; p += il) {
                        IntVector s2 = (IntVector) ShortVector.fromArray(SH, scratch, r * TOKENS + p)
                                .convertShape(VectorOperators.S2I, I, 0);
                        IntVector s = IntVector.fromArray(I, xs, xsj + p)
                                .lanewise(VectorOperators.LSHL, 3)
                                .sub(s2)
                                .mul(scale);
                        int ia = r * TOKENS + p;
                        // two stores, not one of a vector chosen by a condition (see Q4BlockInterleaved)
                        if (j == 0) {
                            s.intoArray(isum, ia);
                        } else {
                            s.add(IntVector.fromArray(I, isum, ia)).intoArray(isum, ia);
                        }
                    }
                }
            }
            int xsb = xsOff + 8 * b * TOKENS;
            for (int r = 0; r < ROWS; r++) {
                float dr = d[dOff + b * GROUP + r];
                float mr = dmin[dOff + b * GROUP + r];
                int mb = sOff + 8 * b * GROUP + r;
                for (int p = 0; p < TOKENS; p += il) {
                    IntVector ms = IntVector.zero(I);
                    for (int j = 0; j < 8; j++) {
                        ms = IntVector.fromArray(I, xs, xsb + j * TOKENS + p)
                                .mul(m[mb + j * GROUP])
                                .add(ms);
                    }
                    FloatVector dx = FloatVector.fromArray(F, xd, xdOff + b * TOKENS + p);
                    int a = accOff + r * TOKENS + p;
                    ((FloatVector) IntVector.fromArray(I, isum, r * TOKENS + p).convert(VectorOperators.I2F, 0))
                            .fma(dx.mul(dr), FloatVector.fromArray(F, acc, a))
                            .intoArray(acc, a);
                    ((FloatVector) ms.convert(VectorOperators.I2F, 0))
                            .fma(dx.mul(mr), FloatVector.fromArray(F, min, a))
                            .intoArray(min, a);
                }
            }
        }
    }

    /** Scalar twin of {@link #tile}. */
    static void tileScalar(
            short[] wq,
            int wOff,
            int[] sc,
            int[] m,
            int sOff,
            float[] d,
            float[] dmin,
            int dOff,
            short[] xq,
            int xqOff,
            float[] xd,
            int xdOff,
            int[] xs,
            int xsOff,
            int nb,
            float[] acc,
            float[] min,
            int accOff) {
        for (int b = 0; b < nb; b++) {
            for (int r = 0; r < ROWS; r++) {
                for (int t = 0; t < TOKENS; t++) {
                    int isum = 0;
                    int msum = 0;
                    for (int j = 0; j < 8; j++) {
                        int s = 0;
                        for (int k = 256 * b + 32 * j; k < 256 * b + 32 * j + 32; k++) {
                            s += (8 - wq[wOff + k * GROUP + r]) * xq[xqOff + k * TOKENS + t];
                        }
                        int sub = sOff + (8 * b + j) * GROUP + r;
                        isum += sc[sub] * s;
                        msum += m[sub] * xs[xsOff + (8 * b + j) * TOKENS + t];
                    }
                    float dx = xd[xdOff + b * TOKENS + t];
                    int a = accOff + r * TOKENS + t;
                    acc[a] = Math.fma((float) isum, dx * d[dOff + b * GROUP + r], acc[a]);
                    min[a] = Math.fma((float) msum, dx * dmin[dOff + b * GROUP + r], min[a]);
                }
            }
        }
    }
}

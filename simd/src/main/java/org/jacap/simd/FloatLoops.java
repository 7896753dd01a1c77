package org.jacap.simd;

import static org.jacap.simd.Layouts.F256;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The shared float loops every weight type runs through once its blocks are decoded: a dot
 * product and the register tile of the matrix product. Each has a scalar twin.
 *
 * <p>The prefill tile {@link #tile6x16} is an outer product: vectors run along 16 tokens of
 * packed activations and each weight is broadcast, so 12 FMAs share 2 vector loads and no
 * horizontal sum is needed. On the 2-core AMD EPYC it ran at 57-73 GFLOP/s per core where the
 * earlier dot-style tiles (vectors along k, one horizontal sum per result) reached 39-48 (4 rows
 * x 2 tokens) and 40 (6 x 2).
 */
final class FloatLoops {
    private FloatLoops() {}

    /**
     * Σ a[aOff+i]·b[bOff+i] over {@code n} elements: the weight-row dot, in {@link Layouts#F256}
     * vectors (four of them per block of 32, as the block kernels) with an FMA tail, the same
     * arithmetic as {@link F32Kernel#dot} over the mapped row. A deliberate twin of {@link
     * VectorOps#dot} (the CPU's width, a multiply-then-add tail): each keeps the summation order its
     * callers' results are pinned to.
     */
    static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        FloatVector s0 = FloatVector.zero(F256);
        FloatVector s1 = FloatVector.zero(F256);
        FloatVector s2 = FloatVector.zero(F256);
        FloatVector s3 = FloatVector.zero(F256);
        int i = 0;
        for (int bound = n & ~31; i < bound; i += 32) {
            s0 = FloatVector.fromArray(F256, a, aOff + i).fma(FloatVector.fromArray(F256, b, bOff + i), s0);
            s1 = FloatVector.fromArray(F256, a, aOff + i + 8).fma(FloatVector.fromArray(F256, b, bOff + i + 8), s1);
            s2 = FloatVector.fromArray(F256, a, aOff + i + 16).fma(FloatVector.fromArray(F256, b, bOff + i + 16), s2);
            s3 = FloatVector.fromArray(F256, a, aOff + i + 24).fma(FloatVector.fromArray(F256, b, bOff + i + 24), s3);
        }
        for (int bound = n & ~7; i < bound; i += 8) {
            s0 = FloatVector.fromArray(F256, a, aOff + i).fma(FloatVector.fromArray(F256, b, bOff + i), s0);
        }
        float sum = LaneSums.sum256(s0.add(s1).add(s2.add(s3)));
        for (; i < n; i++) {
            sum = Math.fma(a[aOff + i], b[bOff + i], sum);
        }
        return sum;
    }

    /** Scalar twin of {@link #dot}. */
    static float dotScalar(float[] a, int aOff, float[] b, int bOff, int n) {
        float sum = 0f;
        for (int i = 0; i < n; i++) {
            sum += a[aOff + i] * b[bOff + i];
        }
        return sum;
    }

    /** Tokens per packed activation group of {@link #tile6x16}: two 8-lane vectors. */
    static final int PACK = 16;
    /** Weight rows of {@link #tile6x16}. */
    static final int PACK_ROWS = 6;

    /**
     * 6 rows x 16 tokens as outer products: {@code acc[r*16 + t] = Σ_k w[wOff + r*wStride + k] * xp[xpOff + 16k + t]},
     * the activations packed token-minor ({@link #pack}). Each lane sums in k order with FMA, so
     * the result equals {@link #tile6x16Scalar} bit for bit, and n needs no vector tail.
     */
    static void tile6x16(float[] w, int wOff, int wStride, float[] xp, int xpOff, int n, float[] acc) {
        FloatVector c00 = FloatVector.zero(F256),
                c01 = FloatVector.zero(F256),
                c10 = FloatVector.zero(F256),
                c11 = FloatVector.zero(F256);
        FloatVector c20 = FloatVector.zero(F256),
                c21 = FloatVector.zero(F256),
                c30 = FloatVector.zero(F256),
                c31 = FloatVector.zero(F256);
        FloatVector c40 = FloatVector.zero(F256),
                c41 = FloatVector.zero(F256),
                c50 = FloatVector.zero(F256),
                c51 = FloatVector.zero(F256);
        int w0 = wOff, w1 = w0 + wStride, w2 = w1 + wStride, w3 = w2 + wStride, w4 = w3 + wStride, w5 = w4 + wStride;
        for (int k = 0; k < n; k++) {
            FloatVector x0 = FloatVector.fromArray(F256, xp, xpOff + PACK * k);
            FloatVector x1 = FloatVector.fromArray(F256, xp, xpOff + PACK * k + 8);
            FloatVector b = FloatVector.broadcast(F256, w[w0 + k]);
            c00 = x0.fma(b, c00);
            c01 = x1.fma(b, c01);
            b = FloatVector.broadcast(F256, w[w1 + k]);
            c10 = x0.fma(b, c10);
            c11 = x1.fma(b, c11);
            b = FloatVector.broadcast(F256, w[w2 + k]);
            c20 = x0.fma(b, c20);
            c21 = x1.fma(b, c21);
            b = FloatVector.broadcast(F256, w[w3 + k]);
            c30 = x0.fma(b, c30);
            c31 = x1.fma(b, c31);
            b = FloatVector.broadcast(F256, w[w4 + k]);
            c40 = x0.fma(b, c40);
            c41 = x1.fma(b, c41);
            b = FloatVector.broadcast(F256, w[w5 + k]);
            c50 = x0.fma(b, c50);
            c51 = x1.fma(b, c51);
        }
        c00.intoArray(acc, 0);
        c01.intoArray(acc, 8);
        c10.intoArray(acc, 16);
        c11.intoArray(acc, 24);
        c20.intoArray(acc, 32);
        c21.intoArray(acc, 40);
        c30.intoArray(acc, 48);
        c31.intoArray(acc, 56);
        c40.intoArray(acc, 64);
        c41.intoArray(acc, 72);
        c50.intoArray(acc, 80);
        c51.intoArray(acc, 88);
    }

    /** 16-lane floats for {@link #tile6x32}. */
    private static final VectorSpecies<Float> F512 = FloatVector.SPECIES_512;

    /**
     * Whether prefill runs {@link #tile6x32}: on AVX-512 machines, as the integer kernels
     * ({@link Layouts#WIDE}, so {@code -Djacap.simd.bits=256} forces the 8-lane tile too); on 256-bit
     * machines the 16-lane species would be emulated.
     */
    static final boolean WIDE_TILE = Layouts.WIDE;

    /**
     * {@link #tile6x16} for two packed groups at once, with 16-lane vectors: 6 rows x 32 tokens,
     * group {@code xa} into {@code acc[0..96)} and group {@code xb} into {@code acc[96..192)}
     * (each {@code r*16 + t}). Per k: 2 vector loads and 6 broadcasts feed 12 FMAs of 16 lanes, twice
     * the work per instruction of the 8-lane tile. Each lane still sums in k order with FMA, so both
     * halves equal {@link #tile6x16Scalar} bit for bit.
     */
    static void tile6x32(float[] w, int wOff, int wStride, float[] xp, int xa, int xb, int n, float[] acc) {
        FloatVector c00 = FloatVector.zero(F512),
                c01 = FloatVector.zero(F512),
                c10 = FloatVector.zero(F512),
                c11 = FloatVector.zero(F512);
        FloatVector c20 = FloatVector.zero(F512),
                c21 = FloatVector.zero(F512),
                c30 = FloatVector.zero(F512),
                c31 = FloatVector.zero(F512);
        FloatVector c40 = FloatVector.zero(F512),
                c41 = FloatVector.zero(F512),
                c50 = FloatVector.zero(F512),
                c51 = FloatVector.zero(F512);
        int w0 = wOff, w1 = w0 + wStride, w2 = w1 + wStride, w3 = w2 + wStride, w4 = w3 + wStride, w5 = w4 + wStride;
        for (int k = 0; k < n; k++) {
            FloatVector x0 = FloatVector.fromArray(F512, xp, xa + PACK * k);
            FloatVector x1 = FloatVector.fromArray(F512, xp, xb + PACK * k);
            FloatVector b = FloatVector.broadcast(F512, w[w0 + k]);
            c00 = x0.fma(b, c00);
            c01 = x1.fma(b, c01);
            b = FloatVector.broadcast(F512, w[w1 + k]);
            c10 = x0.fma(b, c10);
            c11 = x1.fma(b, c11);
            b = FloatVector.broadcast(F512, w[w2 + k]);
            c20 = x0.fma(b, c20);
            c21 = x1.fma(b, c21);
            b = FloatVector.broadcast(F512, w[w3 + k]);
            c30 = x0.fma(b, c30);
            c31 = x1.fma(b, c31);
            b = FloatVector.broadcast(F512, w[w4 + k]);
            c40 = x0.fma(b, c40);
            c41 = x1.fma(b, c41);
            b = FloatVector.broadcast(F512, w[w5 + k]);
            c50 = x0.fma(b, c50);
            c51 = x1.fma(b, c51);
        }
        c00.intoArray(acc, 0);
        c10.intoArray(acc, 16);
        c20.intoArray(acc, 32);
        c30.intoArray(acc, 48);
        c40.intoArray(acc, 64);
        c50.intoArray(acc, 80);
        c01.intoArray(acc, 96);
        c11.intoArray(acc, 112);
        c21.intoArray(acc, 128);
        c31.intoArray(acc, 144);
        c41.intoArray(acc, 160);
        c51.intoArray(acc, 176);
    }

    /** Rows of {@link #tile8x32T}: a quarter of a repacked group ({@link Interleaving}). */
    static final int T_ROWS = 8;

    /**
     * {@link #tile6x32} for 8 rows of weights stored column-major in groups of 32 rows, as a
     * repacked matrix dequantizes ({@code w[wOff + 32k + r]}): 8 rows x 32 tokens, group {@code xa}
     * into {@code acc[accOff ..+128)} and group {@code xb} into {@code acc[accOff+128 ..+256)} (each
     * {@code r*16 + t}), continuing the sums already there, so a caller can split k into blocks
     * that stay in L1. Per k: 2 vector loads and 8 broadcasts feed 16 FMAs. Each lane sums in k
     * order with FMA, as {@link #tile6x32} does, so a row gets the same bits from either layout.
     */
    static void tile8x32T(float[] w, int wOff, float[] xp, int xa, int xb, int n, float[] acc, int accOff) {
        FloatVector c0a = FloatVector.fromArray(F512, acc, accOff);
        FloatVector c1a = FloatVector.fromArray(F512, acc, accOff + 16);
        FloatVector c2a = FloatVector.fromArray(F512, acc, accOff + 32);
        FloatVector c3a = FloatVector.fromArray(F512, acc, accOff + 48);
        FloatVector c4a = FloatVector.fromArray(F512, acc, accOff + 64);
        FloatVector c5a = FloatVector.fromArray(F512, acc, accOff + 80);
        FloatVector c6a = FloatVector.fromArray(F512, acc, accOff + 96);
        FloatVector c7a = FloatVector.fromArray(F512, acc, accOff + 112);
        FloatVector c0b = FloatVector.fromArray(F512, acc, accOff + 128);
        FloatVector c1b = FloatVector.fromArray(F512, acc, accOff + 144);
        FloatVector c2b = FloatVector.fromArray(F512, acc, accOff + 160);
        FloatVector c3b = FloatVector.fromArray(F512, acc, accOff + 176);
        FloatVector c4b = FloatVector.fromArray(F512, acc, accOff + 192);
        FloatVector c5b = FloatVector.fromArray(F512, acc, accOff + 208);
        FloatVector c6b = FloatVector.fromArray(F512, acc, accOff + 224);
        FloatVector c7b = FloatVector.fromArray(F512, acc, accOff + 240);
        for (int k = 0; k < n; k++) {
            FloatVector x0 = FloatVector.fromArray(F512, xp, xa + PACK * k);
            FloatVector x1 = FloatVector.fromArray(F512, xp, xb + PACK * k);
            int wk = wOff + 32 * k;
            FloatVector b = FloatVector.broadcast(F512, w[wk]);
            c0a = x0.fma(b, c0a);
            c0b = x1.fma(b, c0b);
            b = FloatVector.broadcast(F512, w[wk + 1]);
            c1a = x0.fma(b, c1a);
            c1b = x1.fma(b, c1b);
            b = FloatVector.broadcast(F512, w[wk + 2]);
            c2a = x0.fma(b, c2a);
            c2b = x1.fma(b, c2b);
            b = FloatVector.broadcast(F512, w[wk + 3]);
            c3a = x0.fma(b, c3a);
            c3b = x1.fma(b, c3b);
            b = FloatVector.broadcast(F512, w[wk + 4]);
            c4a = x0.fma(b, c4a);
            c4b = x1.fma(b, c4b);
            b = FloatVector.broadcast(F512, w[wk + 5]);
            c5a = x0.fma(b, c5a);
            c5b = x1.fma(b, c5b);
            b = FloatVector.broadcast(F512, w[wk + 6]);
            c6a = x0.fma(b, c6a);
            c6b = x1.fma(b, c6b);
            b = FloatVector.broadcast(F512, w[wk + 7]);
            c7a = x0.fma(b, c7a);
            c7b = x1.fma(b, c7b);
        }
        c0a.intoArray(acc, accOff);
        c1a.intoArray(acc, accOff + 16);
        c2a.intoArray(acc, accOff + 32);
        c3a.intoArray(acc, accOff + 48);
        c4a.intoArray(acc, accOff + 64);
        c5a.intoArray(acc, accOff + 80);
        c6a.intoArray(acc, accOff + 96);
        c7a.intoArray(acc, accOff + 112);
        c0b.intoArray(acc, accOff + 128);
        c1b.intoArray(acc, accOff + 144);
        c2b.intoArray(acc, accOff + 160);
        c3b.intoArray(acc, accOff + 176);
        c4b.intoArray(acc, accOff + 192);
        c5b.intoArray(acc, accOff + 208);
        c6b.intoArray(acc, accOff + 224);
        c7b.intoArray(acc, accOff + 240);
    }

    /** Scalar twin of {@link #tile8x32T}. */
    static void tile8x32TScalar(float[] w, int wOff, float[] xp, int xa, int xb, int n, float[] acc, int accOff) {
        for (int half = 0; half < 2; half++) {
            int x0 = half == 0 ? xa : xb;
            for (int r = 0; r < T_ROWS; r++) {
                for (int t = 0; t < PACK; t++) {
                    int a = accOff + 128 * half + r * PACK + t;
                    float s = acc[a];
                    for (int k = 0; k < n; k++) {
                        s = Math.fma(xp[x0 + PACK * k + t], w[wOff + 32 * k + r], s);
                    }
                    acc[a] = s;
                }
            }
        }
    }

    /** Scalar twin of {@link #tile6x16}. */
    static void tile6x16Scalar(float[] w, int wOff, int wStride, float[] xp, int xpOff, int n, float[] acc) {
        for (int r = 0; r < PACK_ROWS; r++) {
            for (int t = 0; t < PACK; t++) {
                float s = 0f;
                for (int k = 0; k < n; k++) {
                    s = Math.fma(xp[xpOff + PACK * k + t], w[wOff + r * wStride + k], s);
                }
                acc[r * PACK + t] = s;
            }
        }
    }

    /**
     * Packs tokens {@code [t0, t0+16)} of {@code x} (token-major, {@code cols} per token, only the
     * first {@code tokens} exist) into {@code xp[xpOff + 16k + t]}, zero for missing tokens.
     */
    static void pack(float[] x, int xOff, int cols, int t0, int tokens, float[] xp, int xpOff) {
        for (int t = 0; t < PACK; t++) {
            int token = t0 + t;
            if (token < tokens) {
                for (int k = 0, src = xOff + token * cols; k < cols; k++) {
                    xp[xpOff + PACK * k + t] = x[src + k];
                }
            } else {
                for (int k = 0; k < cols; k++) {
                    xp[xpOff + PACK * k + t] = 0f;
                }
            }
        }
    }
}

package org.jacap.simd;

import static org.jacap.simd.VectorOps.F_PREFERRED;

import java.util.Objects;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

/**
 * One query head's attention computed as llama.cpp's CPU flash attention does for small batches
 * (fewer than {@link #LLAMA_TILE_QUERIES} query rows: decoding and short prompts) with its default
 * F16 cache: the query is rounded to F16, the keys are visited in order with an online softmax
 * (running maximum M and sum S in float), and the value accumulator is an F16 vector: every rescale
 * and every fused multiply-add is rounded back to F16. That accumulator is the largest difference
 * between llama.cpp's decoding and exact attention (log-probs ~0.1 nats apart on SmolLM2), so the
 * native precision path reproduces it; larger batches use llama.cpp's F32 tiles, which the plain
 * {@link Attention} kernels match. Keys and values must already be F16 values (the cache rounds them).
 *
 * <p>What is ours: the order of each Q·K sum ({@link RowDots}, eight rows at a time), the
 * exponential ({@link AttentionExp}, eight at a time, the float e^x), and the F16 rounding on the
 * vector lanes ({@link HalfVectors#roundToF16}, or half of it where a bound proves no lane can
 * overflow: {@link #updateHeads}). On a decode step deep into a context these three
 * are the step's cost; one row at a time, with {@code Math.exp} and scalar F16 conversions, it
 * took about twice as long.
 */
public final class HalfOnlineAttention {
    private HalfOnlineAttention() {}

    /** llama.cpp's {@code GGML_FA_TILE_Q}: batches with at least this many queries take its F32 tiled path. */
    public static final int LLAMA_TILE_QUERIES = 64;

    /**
     * Rows of one chunk of a long context. Over more rows than this, {@link #attend} runs one chain
     * per chunk and folds their states in chunk order ({@link #fold}), so a decode step deep in a
     * context can give one head's chunks to different threads: a fixed length, so the thread count
     * does not change the bits. Up to it the arithmetic is llama.cpp's single chain.
     */
    public static final int CHUNK_ROWS = 1024;

    /**
     * Floats of one head's running state: the F16 query, the F16 accumulator, M and S, room for a
     * block of rows' rescale and weight factors, and a folded block for the chunks.
     */
    public static int stateSize(int dk, int dv) {
        return dk + dv + 2 + 2 * BOUND_ROWS + foldedSize(dv);
    }

    /** How many chunks of {@link #CHUNK_ROWS} {@code rows} visible rows take (one for none). */
    public static int chunks(int rows) {
        return Math.max(1, (rows + CHUNK_ROWS - 1) / CHUNK_ROWS);
    }

    /** Floats of an accumulator block: {@code dv} accumulator values, then M and S. A state's starts at {@code so + dk}. */
    public static int foldedSize(int dv) {
        return dv + 2;
    }

    /**
     * out[outOff, +dv) = softmax(scale·q·Kᵀ)·V over the {@code n} rows of keys (row j at
     * {@code keyOff + j·dk}) and values (at {@code valOff + j·dv}); {@code scratch} needs
     * {@link #stateSize} floats. The same as {@link #begin}, one {@link #update} over all rows and
     * {@link #finish}.
     */
    public static void attend(
            float[] q,
            int qOff,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            int dk,
            int dv,
            float scale,
            float[] scratch,
            float[] out,
            int outOff) {
        if (n <= CHUNK_ROWS) {
            begin(q, qOff, dk, dv, scratch, 0);
            update(scratch, 0, dk, dv, keys, keyOff, values, valOff, n, scale);
            finish(scratch, 0, dk, dv, out, outOff);
            return;
        }
        int folded = stateSize(dk, dv) - foldedSize(dv);
        for (int c0 = 0; c0 < n; c0 += CHUNK_ROWS) {
            begin(q, qOff, dk, dv, scratch, 0);
            update(
                    scratch,
                    0,
                    dk,
                    dv,
                    keys,
                    keyOff + c0 * dk,
                    values,
                    valOff + c0 * dv,
                    Math.min(CHUNK_ROWS, n - c0),
                    scale);
            fold(scratch, dk, scratch, folded, dv, c0 == 0);
        }
        finishFolded(scratch, folded, dv, out, outOff);
    }

    /**
     * Folds the accumulator block at {@code src[srcOff ..)} (a chunk's state: its F16 accumulator
     * relative to its own maximum M, and its sum S) into the block {@code run[ro ..)}, in float:
     * both rescaled to the larger maximum, {@code A ← fma(A_chunk, e^(M_chunk − M), A·e^(M_run − M))},
     * likewise S. {@code first}: copies. The exponential is {@link StrictMath#exp}'s, so every path
     * and its scalar twin fold with the same bits.
     */
    public static void fold(float[] src, int srcOff, float[] run, int ro, int dv, boolean first) {
        Objects.checkFromIndexSize(srcOff, foldedSize(dv), src.length);
        Objects.checkFromIndexSize(ro, foldedSize(dv), run.length);
        if (first) {
            System.arraycopy(src, srcOff, run, ro, foldedSize(dv));
            return;
        }
        float mRun = run[ro + dv];
        float mChunk = src[srcOff + dv];
        float m = Math.max(mRun, mChunk);
        float fRun = (float) StrictMath.exp(mRun - m);
        float fChunk = (float) StrictMath.exp(mChunk - m);
        for (int c = 0; c < dv; c++) {
            run[ro + c] = Math.fma(src[srcOff + c], fChunk, run[ro + c] * fRun);
        }
        run[ro + dv] = m;
        run[ro + dv + 1] = Math.fma(src[srcOff + dv + 1], fChunk, run[ro + dv + 1] * fRun);
    }

    /** out[outOff, +dv) = a folded block's accumulator over its S, as {@link #finish} divides a state's. */
    public static void finishFolded(float[] run, int ro, int dv, float[] out, int outOff) {
        Objects.checkFromIndexSize(ro, foldedSize(dv), run.length);
        Objects.checkFromIndexSize(outOff, dv, out.length);
        float s = run[ro + dv + 1];
        float inv = s == 0f ? 0f : 1f / s;
        for (int c = 0; c < dv; c++) {
            out[outOff + c] = run[ro + c] * inv;
        }
    }

    /** Starts one head: {@code state[so, +stateSize)} holds the query rounded to F16, a zero accumulator, M = −∞, S = 0. */
    public static void begin(float[] q, int qOff, int dk, int dv, float[] state, int so) {
        Objects.checkFromIndexSize(qOff, dk, q.length);
        Objects.checkFromIndexSize(so, stateSize(dk, dv), state.length);
        for (int c = 0; c < dk; c++) {
            state[so + c] = HalfFloats.roundToF16(q[qOff + c]);
        }
        java.util.Arrays.fill(state, so + dk, so + dk + dv, 0f);
        state[so + dk + dv] = Float.NEGATIVE_INFINITY;
        state[so + dk + dv + 1] = 0f;
    }

    /**
     * Rows visited as one block ({@link #updateBounded}): their factors are worked out first, then
     * the accumulator takes them, under one bound of its magnitude (over this many updates it grows
     * by at most (1 + 2^-10)^64 &lt; 1.07 besides the values added).
     */
    static final int BOUND_ROWS = 64;

    /**
     * Visits the next {@code n} rows of keys and values, in order, for the head whose state is at
     * {@code so}: the rows of a context may come in tiles, with the same bits as one call over all.
     * The accumulator's rescale and multiply-add run on the vector lanes, each lane rounded to F16 as
     * the scalar twin {@link #attendScalar} rounds each element: {@link #updateHeads} for one head,
     * with the largest value of these rows as its bound.
     */
    public static void update(
            float[] state,
            int so,
            int dk,
            int dv,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            float scale) {
        Objects.checkFromIndexSize(valOff, (long) n * dv, values.length);
        float bound = largestMagnitude(values, valOff, n * dv);
        updateHeads(state, so, 1, dk, dv, keys, keyOff, values, valOff, n, scale, bound);
    }

    /**
     * {@link #update} for {@code heads} query heads of one KV head, whose states lie one
     * {@link #stateSize} apart from {@code so}, over the same rows, when the caller knows
     * {@code valueBound}: a bound on the magnitude of every value among the {@code n} rows (for
     * example {@link #largestMagnitude}; NaN or infinity if one is not finite), as the decode path
     * takes it from its KV cache. Each head gets the bits {@link #update} gives it alone; one call
     * serves all the heads that visit a tile while it is in the first-level cache.
     *
     * <p>Why a bound: rounding a lane to F16 costs twice as much when it may reach 65,520, where
     * F16 overflows to infinity. Each update adds one value times a weight of at most 1 to an
     * accumulator whose rescales only shrink it, so over {@code m ≤} {@link #BOUND_ROWS} rows its
     * magnitude stays below (A + m·V)·(1 + 2^-10)^m + m·2^-24, A its largest lane at the start and
     * V the bound: under 50,000 for A + m·V keeps every lane below 65,000, and the cheap rounding
     * ({@link #fmaRoundedBelow65520}) gives the same bits. Otherwise the rows take the
     * full rounding.
     */
    public static void updateHeads(
            float[] state,
            int so,
            int heads,
            int dk,
            int dv,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            float scale,
            float valueBound) {
        for (int r = 0; r < n; r += BOUND_ROWS) {
            int rows = Math.min(BOUND_ROWS, n - r);
            updateBounded(
                    state, so, heads, dk, dv, keys, keyOff + r * dk, values, valOff + r * dv, rows, scale, valueBound);
        }
    }

    /** The largest |x| of {@code a[off, +n)}: NaN or infinity when one is not finite (compared as bits). */
    public static float largestMagnitude(float[] a, int off, int n) {
        Objects.checkFromIndexSize(off, n, a.length);
        int i = 0;
        IntVector most = FloatVector.zero(F_PREFERRED).reinterpretAsInts();
        for (int bound = F_PREFERRED.loopBound(n); i < bound; i += F_PREFERRED.length()) {
            most = most.max(FloatVector.fromArray(F_PREFERRED, a, off + i)
                    .reinterpretAsInts()
                    .and(0x7FFFFFFF));
        }
        int bits = most.reduceLanes(VectorOperators.MAX);
        for (; i < n; i++) {
            bits = Math.max(bits, Float.floatToRawIntBits(a[off + i]) & 0x7FFFFFFF);
        }
        return Float.intBitsToFloat(bits); // non-negative bits order as the magnitudes do, NaN above infinity
    }

    /**
     * {@link #largestMagnitude} one element at a time: the accumulator's, once a block, kept out
     * of vectors so that the block's compilation holds no more vector code than its loops need.
     */
    private static float largestMagnitudeScalar(float[] a, int off, int n) {
        int bits = 0;
        for (int i = 0; i < n; i++) {
            bits = Math.max(bits, Float.floatToRawIntBits(a[off + i]) & 0x7FFFFFFF);
        }
        return Float.intBitsToFloat(bits);
    }

    /**
     * The heads over one block of at most {@link #BOUND_ROWS} rows, one head after the other: its
     * scores and every exponential at once (the running maximum is known row by row before any
     * exponential), each row's factors, then the rows in order into the accumulator
     * ({@link #accumulate}). Each lane sees the same operations in the same order as in
     * {@link #attendScalar}.
     */
    private static void updateBounded(
            float[] state,
            int so,
            int heads,
            int dk,
            int dv,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            float scale,
            float valueBound) {
        int size = stateSize(dk, dv);
        Objects.checkFromIndexSize(so, (long) heads * size, state.length);
        Objects.checkFromIndexSize(keyOff, (long) n * dk, keys.length);
        Objects.checkFromIndexSize(valOff, (long) n * dv, values.length);
        if (n > BOUND_ROWS) {
            throw new IllegalArgumentException("a block holds at most " + BOUND_ROWS + " rows, got " + n);
        }
        for (int h = 0; h < heads; h++) {
            int hs = so + h * size;
            int acc = hs + dk;
            int scores = acc + dv + 2;
            int weights = scores + BOUND_ROWS;
            // NaN or infinity in either fails the test: those rows take the full rounding
            boolean cheap = largestMagnitudeScalar(state, acc, dv) + n * valueBound < 50_000f;
            // F16 x F16 products are exact in float, so only the summation order is ours (RowDots').
            RowDots.scores(state, hs, keys, keyOff, n, dk, scale, state, scores);
            // The running maximum is known row by row before any exponential: the block's
            // exponentials (a new maximum's rescale e^(M_old − M), else e^(score − M)) at once.
            float m = state[acc + dv];
            for (int j = 0; j < n; j++) {
                float kq = state[scores + j];
                if (kq > m) {
                    state[weights + j] = m - kq;
                    m = kq;
                } else {
                    state[weights + j] = kq - m;
                }
            }
            AttentionExp.exp(state, weights, state, weights, n);
            // each row's factors: a rescale ms (1 but on a new maximum) and a weight vs (1 on a new maximum)
            m = state[acc + dv];
            for (int j = 0; j < n; j++) {
                float kq = state[scores + j];
                if (kq > m) {
                    m = kq;
                    state[scores + j] = state[weights + j];
                    state[weights + j] = 1f;
                } else {
                    state[scores + j] = 1f;
                }
            }
            state[acc + dv] = m;
            accumulate(state, acc, dv, values, valOff, n, scores, weights, cheap);
        }
    }

    /**
     * acc ← f16(fma(v_j, vs_j, f16(acc · ms_j))) and S ← S·ms_j + vs_j for the rows j &lt; n in order,
     * the accumulator's rescale only where {@code ms_j ≠ 1} (a rescale by 1 leaves an F16 value as
     * it is); the factors lie in {@code state} at {@code rescales} and {@code weights}. A loop with
     * nothing else in it, S's chain hidden behind the vector work. (Holding the accumulator in
     * registers through the rows instead boxed the vectors: C2 lost their exact class at the
     * loop's phi.)
     */
    static void accumulate(
            float[] state,
            int acc,
            int dv,
            float[] values,
            int valOff,
            int n,
            int rescales,
            int weights,
            boolean cheap) {
        float s = state[acc + dv + 1];
        for (int j = 0; j < n; j++) {
            float ms = state[rescales + j];
            float vs = state[weights + j];
            if (ms != 1f) {
                // A new maximum's rescale, ms in [0, 1): every lane is an F16 value (finite ones at
                // most 65,504), so no product reaches 65,520 and fmaRoundedBelow65520's rounding
                // is exact whatever the bound. Written out here: as a call (taken about once in
                // 120 rows) C2 left it in C1's code, which boxes every vector, and the rescales took
                // a third of SmolLM2's decode 4,096 deep (JFR, 2026-12-07).
                int c = 0;
                for (int bound = F_PREFERRED.loopBound(dv); c < bound; c += F_PREFERRED.length()) {
                    FloatVector x =
                            FloatVector.fromArray(F_PREFERRED, state, acc + c).mul(ms);
                    IntVector bits = x.reinterpretAsInts();
                    FloatVector step = bits.and(HalfVectors.FLOAT_INFINITY)
                            .lanewise(VectorOperators.MAX, HalfVectors.F16_MIN_NORMAL)
                            .add(HalfVectors.STEP)
                            .reinterpretAsFloats();
                    x.add(step)
                            .sub(step)
                            .reinterpretAsInts()
                            .lanewise(VectorOperators.BITWISE_BLEND, bits, HalfVectors.FLOAT_SIGN)
                            .reinterpretAsFloats()
                            .intoArray(state, acc + c);
                }
                for (; c < dv; c++) {
                    state[acc + c] = HalfFloats.roundToF16(state[acc + c] * ms);
                }
            }
            if (cheap) {
                fmaRoundedBelow65520(values, valOff + j * dv, vs, state, acc, dv);
            } else {
                fmaRounded(values, valOff + j * dv, vs, state, acc, dv);
            }
            s = s * ms + vs;
        }
        state[acc + dv + 1] = s;
    }

    /** acc[o, +n) ← f16(fma(x, f, acc)), lane by lane. */
    private static void fmaRounded(float[] x, int xo, float f, float[] acc, int o, int n) {
        FloatVector vf = FloatVector.broadcast(F_PREFERRED, f);
        int c = 0;
        for (int bound = F_PREFERRED.loopBound(n); c < bound; c += F_PREFERRED.length()) {
            FloatVector sum = FloatVector.fromArray(F_PREFERRED, x, xo + c)
                    .fma(vf, FloatVector.fromArray(F_PREFERRED, acc, o + c));
            HalfVectors.roundToF16(sum).intoArray(acc, o + c);
        }
        for (; c < n; c++) {
            acc[o + c] = HalfFloats.roundToF16(Math.fma(x[xo + c], f, acc[o + c]));
        }
    }

    /**
     * {@link #fmaRounded} where no lane reaches 65,520 in magnitude (or a lane is infinite or NaN),
     * with half the operations: {@link HalfVectors#roundToF16} without its clamp of the binade to
     * 2^15 and its overflow test. An infinite lane's step overflows into a tiny float, which leaves
     * it infinite, and NaN stays NaN; a finite lane of 65,520 or more would come out finite and
     * wrong, so callers prove their bound first ({@link #updateHeads}). The rounding is written out
     * in the loop, on a vector whose class C2 knows: as a helper compiled apart it sometimes ran its
     * int operations as virtual calls, and the process decoded at 0.4× (1 in 6 processes).
     */
    static void fmaRoundedBelow65520(float[] x, int xo, float f, float[] acc, int o, int n) {
        FloatVector vf = FloatVector.broadcast(F_PREFERRED, f);
        int c = 0;
        for (int bound = F_PREFERRED.loopBound(n); c < bound; c += F_PREFERRED.length()) {
            FloatVector sum = FloatVector.fromArray(F_PREFERRED, x, xo + c)
                    .fma(vf, FloatVector.fromArray(F_PREFERRED, acc, o + c));
            // step = 1.5·2^(e+13) for the lane's binade 2^e, at least 2^-14's: x + step − step
            // rounds x to F16, and the sign put back keeps a −0 (HalfVectors.roundToF16)
            IntVector bits = sum.reinterpretAsInts();
            FloatVector step = bits.and(HalfVectors.FLOAT_INFINITY)
                    .lanewise(VectorOperators.MAX, HalfVectors.F16_MIN_NORMAL)
                    .add(HalfVectors.STEP)
                    .reinterpretAsFloats();
            sum.add(step)
                    .sub(step)
                    .reinterpretAsInts()
                    .lanewise(VectorOperators.BITWISE_BLEND, bits, HalfVectors.FLOAT_SIGN)
                    .reinterpretAsFloats()
                    .intoArray(acc, o + c);
        }
        for (; c < n; c++) {
            acc[o + c] = HalfFloats.roundToF16(Math.fma(x[xo + c], f, acc[o + c]));
        }
    }

    /** out[outOff, +dv) = the accumulator over S: the head's attention output. */
    public static void finish(float[] state, int so, int dk, int dv, float[] out, int outOff) {
        Objects.checkFromIndexSize(so, stateSize(dk, dv), state.length);
        Objects.checkFromIndexSize(outOff, dv, out.length);
        int acc = so + dk;
        float s = state[acc + dv + 1];
        float inv = s == 0f ? 0f : 1f / s;
        for (int c = 0; c < dv; c++) {
            out[outOff + c] = state[acc + c] * inv;
        }
    }

    /** Scalar twin of {@link #attend}: one element at a time, the same sums and roundings (for tests: it allocates). */
    public static void attendScalar(
            float[] q,
            int qOff,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            int dk,
            int dv,
            float scale,
            float[] scratch,
            float[] out,
            int outOff) {
        checkRanges(q, qOff, keys, keyOff, values, valOff, n, dk, dv, scratch, out, outOff);
        float[] run = new float[foldedSize(dv)];
        float[] chunk = new float[foldedSize(dv)];
        for (int c0 = 0; c0 < n; c0 += CHUNK_ROWS) {
            chainScalar(
                    q,
                    qOff,
                    keys,
                    keyOff + c0 * dk,
                    values,
                    valOff + c0 * dv,
                    Math.min(CHUNK_ROWS, n - c0),
                    dk,
                    dv,
                    scale,
                    scratch,
                    chunk);
            fold(chunk, 0, run, 0, dv, c0 == 0);
        }
        finishFolded(run, 0, dv, out, outOff);
    }

    /** One chain of {@link #attendScalar} over {@code n} rows: its accumulator block into {@code block}. */
    private static void chainScalar(
            float[] q,
            int qOff,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            int dk,
            int dv,
            float scale,
            float[] scratch,
            float[] block) {
        int qh = 0;
        int acc = dk;
        for (int c = 0; c < dk; c++) {
            scratch[qh + c] = HalfFloats.roundToF16(q[qOff + c]);
        }
        java.util.Arrays.fill(scratch, acc, acc + dv, 0f);
        float m = Float.NEGATIVE_INFINITY;
        float s = 0f;
        float[] kq1 = new float[1];
        for (int j = 0; j < n; j++) {
            RowDots.scoresScalar(
                    scratch, qh, keys, keyOff + j * dk, 1, dk, scale, kq1, 0, VectorOps.F_PREFERRED.length());
            float kq = kq1[0];
            float ms = 1f;
            float vs = 1f;
            if (kq > m) {
                float old = m;
                m = kq;
                ms = AttentionExp.expScalar(old - m);
                for (int c = 0; c < dv; c++) {
                    scratch[acc + c] = HalfFloats.roundToF16(scratch[acc + c] * ms);
                }
            } else {
                vs = AttentionExp.expScalar(kq - m);
            }
            int v = valOff + j * dv;
            for (int c = 0; c < dv; c++) {
                scratch[acc + c] = HalfFloats.roundToF16(Math.fma(values[v + c], vs, scratch[acc + c]));
            }
            s = s * ms + vs;
        }
        System.arraycopy(scratch, acc, block, 0, dv);
        block[dv] = m;
        block[dv + 1] = s;
    }

    private static void checkRanges(
            float[] q,
            int qOff,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            int dk,
            int dv,
            float[] scratch,
            float[] out,
            int outOff) {
        Objects.checkFromIndexSize(qOff, dk, q.length);
        Objects.checkFromIndexSize(keyOff, (long) n * dk, keys.length);
        Objects.checkFromIndexSize(valOff, (long) n * dv, values.length);
        Objects.checkFromIndexSize(outOff, dv, out.length);
        Objects.checkFromIndexSize(0, dk + dv, scratch.length);
    }
}

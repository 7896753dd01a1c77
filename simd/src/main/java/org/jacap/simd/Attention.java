package org.jacap.simd;

import static org.jacap.simd.VectorOps.F_PREFERRED;

import java.util.Objects;
import jdk.incubator.vector.FloatVector;

/**
 * The two products of one attention head over a row-major cache ([n][d] keys or values, row j at
 * offset + j·d): scores q·k_j and the weighted sum Σ w_j v_j. Head dimensions of at least one
 * vector (d ≥ 8 on AVX2) run vectorised along d, four keys or four output vectors at a time; smaller
 * heads (toy models) run the scalar twins, which are exact for such short rows anyway. Scalar twins
 * carry the suffix {@code Scalar}.
 */
public final class Attention {

    private Attention() {}

    /** out[outOff+j] = scale·(q · keys_j) for j &lt; nKeys. */
    public static void scores(
            float[] q, int qOff, float[] keys, int keyOff, int nKeys, int d, float scale, float[] out, int outOff) {
        checkArgs(q, qOff, d, keys, keyOff, nKeys, d, out, outOff, nKeys);
        int l = F_PREFERRED.length();
        if (d < l) {
            scoresSmall(q, qOff, keys, keyOff, nKeys, d, scale, out, outOff);
            return;
        }
        int dv = F_PREFERRED.loopBound(d);
        int j = 0;
        for (; j + 4 <= nKeys; j += 4) {
            int k0 = keyOff + j * d;
            int k1 = k0 + d;
            int k2 = k1 + d;
            int k3 = k2 + d;
            FloatVector a0 = FloatVector.zero(F_PREFERRED);
            FloatVector a1 = FloatVector.zero(F_PREFERRED);
            FloatVector a2 = FloatVector.zero(F_PREFERRED);
            FloatVector a3 = FloatVector.zero(F_PREFERRED);
            for (int c = 0; c < dv; c += l) {
                FloatVector qv = FloatVector.fromArray(F_PREFERRED, q, qOff + c);
                a0 = qv.fma(FloatVector.fromArray(F_PREFERRED, keys, k0 + c), a0);
                a1 = qv.fma(FloatVector.fromArray(F_PREFERRED, keys, k1 + c), a1);
                a2 = qv.fma(FloatVector.fromArray(F_PREFERRED, keys, k2 + c), a2);
                a3 = qv.fma(FloatVector.fromArray(F_PREFERRED, keys, k3 + c), a3);
            }
            finishFour(
                    q,
                    qOff,
                    keys,
                    k0,
                    d,
                    dv,
                    scale,
                    out,
                    outOff + j,
                    LaneSums.sum(a0),
                    LaneSums.sum(a1),
                    LaneSums.sum(a2),
                    LaneSums.sum(a3));
        }
        scoresFrom(j, q, qOff, keys, keyOff, nKeys, d, scale, out, outOff);
    }

    /** {@link #scores} of keys {@code [j, nKeys)} one at a time (the last few after the blocks of four). */
    private static void scoresFrom(
            int j,
            float[] q,
            int qOff,
            float[] keys,
            int keyOff,
            int nKeys,
            int d,
            float scale,
            float[] out,
            int outOff) {
        int l = F_PREFERRED.length();
        int dv = F_PREFERRED.loopBound(d);
        for (; j < nKeys; j++) {
            int k0 = keyOff + j * d;
            FloatVector a0 = FloatVector.zero(F_PREFERRED);
            for (int c = 0; c < dv; c += l) {
                a0 = FloatVector.fromArray(F_PREFERRED, q, qOff + c)
                        .fma(FloatVector.fromArray(F_PREFERRED, keys, k0 + c), a0);
            }
            float s0 = LaneSums.sum(a0);
            for (int c = dv; c < d; c++) {
                s0 += q[qOff + c] * keys[k0 + c];
            }
            out[outOff + j] = scale * s0;
        }
    }

    /**
     * {@link #scores} of two query heads over the same keys (a GQA group): each key's four
     * vectors load once for both, and each score is the one {@link #scores} gives that head,
     * bit for bit (the same lanes, FMA order and lane sum).
     */
    public static void scores2(
            float[] q,
            int qOff0,
            int qOff1,
            float[] keys,
            int keyOff,
            int nKeys,
            int d,
            float scale,
            float[] out,
            int outOff0,
            int outOff1) {
        checkArgs(q, qOff0, d, keys, keyOff, nKeys, d, out, outOff0, nKeys);
        checkArgs(q, qOff1, d, keys, keyOff, nKeys, d, out, outOff1, nKeys);
        int l = F_PREFERRED.length();
        if (d < l) {
            scoresSmall(q, qOff0, keys, keyOff, nKeys, d, scale, out, outOff0);
            scoresSmall(q, qOff1, keys, keyOff, nKeys, d, scale, out, outOff1);
            return;
        }
        int dv = F_PREFERRED.loopBound(d);
        int j = 0;
        // Blocks of two keys, not four as in scores: with eight lane sums C2 reached its node
        // cutoff before inlining the last ones and boxed their vectors (a Float512Vector and its
        // array per call, hundreds of MB a second of prefill at depth, and a GC every few ms).
        for (; j + 2 <= nKeys; j += 2) {
            int k0 = keyOff + j * d;
            int k1 = k0 + d;
            FloatVector a0 = FloatVector.zero(F_PREFERRED);
            FloatVector a1 = FloatVector.zero(F_PREFERRED);
            FloatVector b0 = FloatVector.zero(F_PREFERRED);
            FloatVector b1 = FloatVector.zero(F_PREFERRED);
            for (int c = 0; c < dv; c += l) {
                FloatVector qa = FloatVector.fromArray(F_PREFERRED, q, qOff0 + c);
                FloatVector qb = FloatVector.fromArray(F_PREFERRED, q, qOff1 + c);
                FloatVector x0 = FloatVector.fromArray(F_PREFERRED, keys, k0 + c);
                FloatVector x1 = FloatVector.fromArray(F_PREFERRED, keys, k1 + c);
                a0 = qa.fma(x0, a0);
                a1 = qa.fma(x1, a1);
                b0 = qb.fma(x0, b0);
                b1 = qb.fma(x1, b1);
            }
            finishTwo(q, qOff0, keys, k0, d, dv, scale, out, outOff0 + j, LaneSums.sum(a0), LaneSums.sum(a1));
            finishTwo(q, qOff1, keys, k0, d, dv, scale, out, outOff1 + j, LaneSums.sum(b0), LaneSums.sum(b1));
        }
        scoresFrom(j, q, qOff0, keys, keyOff, nKeys, d, scale, out, outOff0);
        scoresFrom(j, q, qOff1, keys, keyOff, nKeys, d, scale, out, outOff1);
    }

    /**
     * Four keys' scores from their lane sums: the scalar tail past {@code dv}, then the scale, as
     * {@link #scores} ends them (floats in, so that a call C2 does not inline boxes no vector).
     */
    private static void finishFour(
            float[] q,
            int qOff,
            float[] keys,
            int k0,
            int d,
            int dv,
            float scale,
            float[] out,
            int o,
            float s0,
            float s1,
            float s2,
            float s3) {
        int k1 = k0 + d;
        int k2 = k1 + d;
        int k3 = k2 + d;
        for (int c = dv; c < d; c++) {
            float qc = q[qOff + c];
            s0 += qc * keys[k0 + c];
            s1 += qc * keys[k1 + c];
            s2 += qc * keys[k2 + c];
            s3 += qc * keys[k3 + c];
        }
        out[o] = scale * s0;
        out[o + 1] = scale * s1;
        out[o + 2] = scale * s2;
        out[o + 3] = scale * s3;
    }

    /** {@link #finishFour} for two keys. */
    private static void finishTwo(
            float[] q,
            int qOff,
            float[] keys,
            int k0,
            int d,
            int dv,
            float scale,
            float[] out,
            int o,
            float s0,
            float s1) {
        int k1 = k0 + d;
        for (int c = dv; c < d; c++) {
            float qc = q[qOff + c];
            s0 += qc * keys[k0 + c];
            s1 += qc * keys[k1 + c];
        }
        out[o] = scale * s0;
        out[o + 1] = scale * s1;
    }

    /**
     * out[outOff+c] = Σ_j weights[wOff+j]·values_j[c] for c &lt; d; out is overwritten (all zeros
     * when nValues = 0).
     */
    public static void accumulate(
            float[] weights, int wOff, float[] values, int valOff, int nValues, int d, float[] out, int outOff) {
        checkArgs(weights, wOff, nValues, values, valOff, nValues, d, out, outOff, d);
        int l = F_PREFERRED.length();
        if (d < l) {
            accumulateSmall(weights, wOff, values, valOff, nValues, d, out, outOff);
            return;
        }
        int c = 0;
        // four output vectors stay in registers while all rows stream past
        for (; c + 4 * l <= d; c += 4 * l) {
            FloatVector a0 = FloatVector.zero(F_PREFERRED);
            FloatVector a1 = FloatVector.zero(F_PREFERRED);
            FloatVector a2 = FloatVector.zero(F_PREFERRED);
            FloatVector a3 = FloatVector.zero(F_PREFERRED);
            int row = valOff + c;
            for (int j = 0; j < nValues; j++, row += d) {
                FloatVector w = FloatVector.broadcast(F_PREFERRED, weights[wOff + j]);
                a0 = FloatVector.fromArray(F_PREFERRED, values, row).fma(w, a0);
                a1 = FloatVector.fromArray(F_PREFERRED, values, row + l).fma(w, a1);
                a2 = FloatVector.fromArray(F_PREFERRED, values, row + 2 * l).fma(w, a2);
                a3 = FloatVector.fromArray(F_PREFERRED, values, row + 3 * l).fma(w, a3);
            }
            a0.intoArray(out, outOff + c);
            a1.intoArray(out, outOff + c + l);
            a2.intoArray(out, outOff + c + 2 * l);
            a3.intoArray(out, outOff + c + 3 * l);
        }
        accumulateFrom(c, weights, wOff, values, valOff, nValues, d, out, outOff);
    }

    /** {@link #accumulate}'s output dimensions {@code [c, d)}, one vector (then one float) at a time. */
    private static void accumulateFrom(
            int c, float[] weights, int wOff, float[] values, int valOff, int nValues, int d, float[] out, int outOff) {
        int l = F_PREFERRED.length();
        for (; c + l <= d; c += l) {
            FloatVector a0 = FloatVector.zero(F_PREFERRED);
            int row = valOff + c;
            for (int j = 0; j < nValues; j++, row += d) {
                a0 = FloatVector.fromArray(F_PREFERRED, values, row)
                        .fma(FloatVector.broadcast(F_PREFERRED, weights[wOff + j]), a0);
            }
            a0.intoArray(out, outOff + c);
        }
        for (; c < d; c++) {
            float s = 0f;
            int row = valOff + c;
            for (int j = 0; j < nValues; j++, row += d) {
                s += weights[wOff + j] * values[row];
            }
            out[outOff + c] = s;
        }
    }

    /**
     * {@link #accumulate} of two query heads' weights over the same values (a GQA group): each
     * value vector loads once for both, and each output is the one {@link #accumulate} gives that
     * head, bit for bit.
     */
    public static void accumulate2(
            float[] weights,
            int wOff0,
            int wOff1,
            float[] values,
            int valOff,
            int nValues,
            int d,
            float[] out,
            int outOff0,
            int outOff1) {
        checkArgs(weights, wOff0, nValues, values, valOff, nValues, d, out, outOff0, d);
        checkArgs(weights, wOff1, nValues, values, valOff, nValues, d, out, outOff1, d);
        int l = F_PREFERRED.length();
        if (d < l) {
            accumulateSmall(weights, wOff0, values, valOff, nValues, d, out, outOff0);
            accumulateSmall(weights, wOff1, values, valOff, nValues, d, out, outOff1);
            return;
        }
        int c = 0;
        for (; c + 4 * l <= d; c += 4 * l) {
            FloatVector a0 = FloatVector.zero(F_PREFERRED);
            FloatVector a1 = FloatVector.zero(F_PREFERRED);
            FloatVector a2 = FloatVector.zero(F_PREFERRED);
            FloatVector a3 = FloatVector.zero(F_PREFERRED);
            FloatVector b0 = FloatVector.zero(F_PREFERRED);
            FloatVector b1 = FloatVector.zero(F_PREFERRED);
            FloatVector b2 = FloatVector.zero(F_PREFERRED);
            FloatVector b3 = FloatVector.zero(F_PREFERRED);
            int row = valOff + c;
            for (int j = 0; j < nValues; j++, row += d) {
                FloatVector wa = FloatVector.broadcast(F_PREFERRED, weights[wOff0 + j]);
                FloatVector wb = FloatVector.broadcast(F_PREFERRED, weights[wOff1 + j]);
                FloatVector v0 = FloatVector.fromArray(F_PREFERRED, values, row);
                FloatVector v1 = FloatVector.fromArray(F_PREFERRED, values, row + l);
                FloatVector v2 = FloatVector.fromArray(F_PREFERRED, values, row + 2 * l);
                FloatVector v3 = FloatVector.fromArray(F_PREFERRED, values, row + 3 * l);
                a0 = v0.fma(wa, a0);
                a1 = v1.fma(wa, a1);
                a2 = v2.fma(wa, a2);
                a3 = v3.fma(wa, a3);
                b0 = v0.fma(wb, b0);
                b1 = v1.fma(wb, b1);
                b2 = v2.fma(wb, b2);
                b3 = v3.fma(wb, b3);
            }
            a0.intoArray(out, outOff0 + c);
            a1.intoArray(out, outOff0 + c + l);
            a2.intoArray(out, outOff0 + c + 2 * l);
            a3.intoArray(out, outOff0 + c + 3 * l);
            b0.intoArray(out, outOff1 + c);
            b1.intoArray(out, outOff1 + c + l);
            b2.intoArray(out, outOff1 + c + 2 * l);
            b3.intoArray(out, outOff1 + c + 3 * l);
        }
        accumulateFrom(c, weights, wOff0, values, valOff, nValues, d, out, outOff0);
        accumulateFrom(c, weights, wOff1, values, valOff, nValues, d, out, outOff1);
    }

    /**
     * One head end to end: scores into {@code scratch[sOff, sOff+n)}, softmax there, then the
     * weighted sum of the values into out. Keys and values share the row width d.
     */
    public static void attend(
            float[] q,
            int qOff,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            int d,
            float scale,
            float[] scratch,
            int sOff,
            float[] out,
            int outOff) {
        scores(q, qOff, keys, keyOff, n, d, scale, scratch, sOff);
        Softmax.inPlace(scratch, sOff, n);
        accumulate(scratch, sOff, values, valOff, n, d, out, outOff);
    }

    private static void scoresSmall(
            float[] q, int qOff, float[] keys, int keyOff, int nKeys, int d, float scale, float[] out, int outOff) {
        for (int j = 0, row = keyOff; j < nKeys; j++, row += d) {
            float s = 0f;
            for (int c = 0; c < d; c++) {
                s += q[qOff + c] * keys[row + c];
            }
            out[outOff + j] = scale * s;
        }
    }

    private static void accumulateSmall(
            float[] weights, int wOff, float[] values, int valOff, int nValues, int d, float[] out, int outOff) {
        java.util.Arrays.fill(out, outOff, outOff + d, 0f);
        for (int j = 0, row = valOff; j < nValues; j++, row += d) {
            float w = weights[wOff + j];
            for (int c = 0; c < d; c++) {
                out[outOff + c] += w * values[row + c];
            }
        }
    }

    /** Checks q/weights [vecOff, +vecLen), the row block [rowOff, +nRows·d) and out [outOff, +outLen). */
    private static void checkArgs(
            float[] vec,
            int vecOff,
            int vecLen,
            float[] rows,
            int rowOff,
            int nRows,
            int d,
            float[] out,
            int outOff,
            int outLen) {
        if (d < 0 || nRows < 0) {
            throw new IllegalArgumentException("negative size: rows " + nRows + ", d " + d);
        }
        Objects.checkFromIndexSize(vecOff, vecLen, vec.length);
        Objects.checkFromIndexSize(rowOff, Math.multiplyExact(nRows, d), rows.length);
        Objects.checkFromIndexSize(outOff, outLen, out.length);
    }

    // ---------------------------------------------------------------- scalar twins

    public static void scoresScalar(
            float[] q, int qOff, float[] keys, int keyOff, int nKeys, int d, float scale, float[] out, int outOff) {
        checkArgs(q, qOff, d, keys, keyOff, nKeys, d, out, outOff, nKeys);
        scoresSmall(q, qOff, keys, keyOff, nKeys, d, scale, out, outOff);
    }

    public static void accumulateScalar(
            float[] weights, int wOff, float[] values, int valOff, int nValues, int d, float[] out, int outOff) {
        checkArgs(weights, wOff, nValues, values, valOff, nValues, d, out, outOff, d);
        accumulateSmall(weights, wOff, values, valOff, nValues, d, out, outOff);
    }

    public static void attendScalar(
            float[] q,
            int qOff,
            float[] keys,
            int keyOff,
            float[] values,
            int valOff,
            int n,
            int d,
            float scale,
            float[] scratch,
            int sOff,
            float[] out,
            int outOff) {
        scoresScalar(q, qOff, keys, keyOff, n, d, scale, scratch, sOff);
        Softmax.inPlaceScalar(scratch, sOff, n);
        accumulateScalar(scratch, sOff, values, valOff, n, d, out, outOff);
    }
}

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
            float s0 = LaneSums.sum(a0);
            float s1 = LaneSums.sum(a1);
            float s2 = LaneSums.sum(a2);
            float s3 = LaneSums.sum(a3);
            for (int c = dv; c < d; c++) {
                float qc = q[qOff + c];
                s0 += qc * keys[k0 + c];
                s1 += qc * keys[k1 + c];
                s2 += qc * keys[k2 + c];
                s3 += qc * keys[k3 + c];
            }
            out[outOff + j] = scale * s0;
            out[outOff + j + 1] = scale * s1;
            out[outOff + j + 2] = scale * s2;
            out[outOff + j + 3] = scale * s3;
        }
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

package org.jacap.simd;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The prefill's Q8_1 offset term for one weight row: {@code out[t·rows + r] += Σ_b m_b·c[b][t]} for
 * every token t, where m_b are the row's block minima and {@code c} the activations' per-block sum
 * corrections stored block-major ({@code c[b·batch + t]}), see {@link VecDotType#q8_1SumCorrections}.
 *
 * <p>The vector form runs the tokens on the lanes, so each lane adds the blocks in the scalar twin's
 * order with a separate multiply and add: both give the same bits. Summed per token, a row of 18
 * blocks was a chain of dependent scalar adds that cost as much as the prefill tile itself.
 */
final class Q8_1Corrections {
    private Q8_1Corrections() {}

    private static final VectorSpecies<Float> F = VectorOps.F_PREFERRED;

    /** Adds row {@code r}'s corrections; {@code sums} is scratch of at least {@code batch} floats. */
    static void addRow(
            float[] minima, float[] c, int blocks, int batch, float[] sums, float[] out, int outOff, int rows, int r) {
        int t = 0;
        for (int upper = F.loopBound(batch); t < upper; t += F.length()) {
            FloatVector acc = FloatVector.zero(F);
            for (int b = 0; b < blocks; b++) {
                acc = FloatVector.fromArray(F, c, b * batch + t).mul(minima[b]).add(acc);
            }
            acc.intoArray(sums, t);
        }
        for (; t < batch; t++) {
            sums[t] = tokenSum(minima, c, blocks, batch, t);
        }
        for (t = 0; t < batch; t++) {
            out[outOff + t * rows + r] += sums[t];
        }
    }

    /** Scalar twin of {@link #addRow}. */
    static void addRowScalar(
            float[] minima, float[] c, int blocks, int batch, float[] out, int outOff, int rows, int r) {
        for (int t = 0; t < batch; t++) {
            out[outOff + t * rows + r] += tokenSum(minima, c, blocks, batch, t);
        }
    }

    private static float tokenSum(float[] minima, float[] c, int blocks, int batch, int t) {
        float s = 0f;
        for (int b = 0; b < blocks; b++) {
            s += c[b * batch + t] * minima[b];
        }
        return s;
    }
}

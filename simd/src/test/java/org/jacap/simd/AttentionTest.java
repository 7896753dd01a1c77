package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jacap.simd.TestData.assertSentinels;
import static org.jacap.simd.TestData.padded;

import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AttentionTest {

    private static final int[] HEAD_DIMS = {1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 80, 128, 129, 256};
    private static final int[] KEY_COUNTS = {0, 1, 3, 4, 5, 9, 64};

    static Stream<Arguments> shapes() {
        return java.util.Arrays.stream(HEAD_DIMS)
                .boxed()
                .flatMap(d -> java.util.Arrays.stream(KEY_COUNTS).mapToObj(n -> Arguments.of(d, n)));
    }

    @ParameterizedTest(name = "d={0} n={1}")
    @MethodSource("shapes")
    void scoresMatchScalarTwinAndDefinition(int d, int n) {
        Random rnd = TestData.random(7000L + 1000L * d + n);
        float[] q = padded(rnd, 3, d, 2, 1f);
        float[] keys = padded(rnd, 5, n * d, 4, 1f);
        float scale = (float) (1 / Math.sqrt(d));
        float[] ov = padded(rnd, 2, n, 3, 9f);
        float[] os = ov.clone();
        Attention.scores(q, 3, keys, 5, n, d, scale, ov, 2);
        Attention.scoresScalar(q, 3, keys, 5, n, d, scale, os, 2);
        assertSentinels(ov, 2, n);
        assertSentinels(os, 2, n);
        for (int j = 0; j < n; j++) {
            double dot = 0;
            double abs = 0;
            for (int c = 0; c < d; c++) {
                double p = (double) q[3 + c] * keys[5 + j * d + c];
                dot += p;
                abs += Math.abs(p);
            }
            double tol = 1e-6 * abs * scale + 1e-9;
            assertThat((double) ov[2 + j])
                    .as("vector key %d", j)
                    .isCloseTo(dot * scale, org.assertj.core.data.Offset.offset(tol));
            assertThat((double) os[2 + j])
                    .as("scalar key %d", j)
                    .isCloseTo(dot * scale, org.assertj.core.data.Offset.offset(tol));
        }
    }

    @ParameterizedTest(name = "d={0} n={1}")
    @MethodSource("shapes")
    void accumulateMatchesScalarTwinAndDefinition(int d, int n) {
        Random rnd = TestData.random(8000L + 1000L * d + n);
        float[] w = padded(rnd, 1, n, 2, 1f);
        float[] values = padded(rnd, 6, n * d, 3, 2f);
        float[] ov = padded(rnd, 4, d, 5, 9f); // garbage in the range: out must be overwritten
        float[] os = ov.clone();
        Attention.accumulate(w, 1, values, 6, n, d, ov, 4);
        Attention.accumulateScalar(w, 1, values, 6, n, d, os, 4);
        assertSentinels(ov, 4, d);
        assertSentinels(os, 4, d);
        for (int c = 0; c < d; c++) {
            double sum = 0;
            double abs = 0;
            for (int j = 0; j < n; j++) {
                double p = (double) w[1 + j] * values[6 + j * d + c];
                sum += p;
                abs += Math.abs(p);
            }
            double tol = 1e-6 * abs + 1e-9;
            assertThat((double) ov[4 + c])
                    .as("vector channel %d", c)
                    .isCloseTo(sum, org.assertj.core.data.Offset.offset(tol));
            assertThat((double) os[4 + c])
                    .as("scalar channel %d", c)
                    .isCloseTo(sum, org.assertj.core.data.Offset.offset(tol));
        }
    }

    @Test
    void attendIsSoftmaxWeightedAverageOfValues() {
        for (int d : new int[] {3, 8, 16, 64, 128}) {
            int n = 37;
            Random rnd = TestData.random(9000 + d);
            float[] q = padded(rnd, 0, d, 0, 2f);
            float[] k = padded(rnd, 0, n * d, 0, 2f);
            float[] v = padded(rnd, 0, n * d, 0, 2f);
            float scale = (float) (1 / Math.sqrt(d));
            double[] logits = new double[n];
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < n; j++) {
                for (int c = 0; c < d; c++) {
                    logits[j] += (double) q[c] * k[j * d + c];
                }
                logits[j] *= scale;
                max = Math.max(max, logits[j]);
            }
            double z = 0;
            for (int j = 0; j < n; j++) {
                logits[j] = Math.exp(logits[j] - max);
                z += logits[j];
            }
            float[] out = new float[d];
            float[] outS = new float[d];
            Attention.attend(q, 0, k, 0, v, 0, n, d, scale, new float[n], 0, out, 0);
            Attention.attendScalar(q, 0, k, 0, v, 0, n, d, scale, new float[n], 0, outS, 0);
            for (int c = 0; c < d; c++) {
                double expected = 0;
                for (int j = 0; j < n; j++) {
                    expected += logits[j] / z * v[j * d + c];
                }
                assertThat((double) out[c])
                        .as("d=%d c=%d", d, c)
                        .isCloseTo(expected, org.assertj.core.data.Offset.offset(2e-5));
                assertThat((double) outS[c])
                        .as("d=%d c=%d", d, c)
                        .isCloseTo(expected, org.assertj.core.data.Offset.offset(2e-5));
            }
        }
    }

    @Test
    void rejectsRangesOutsideTheArrays() {
        float[] q = new float[8];
        float[] keys = new float[8 * 4];
        float[] out = new float[4];
        assertThatThrownBy(() -> Attention.scores(q, 1, keys, 0, 4, 8, 1f, out, 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Attention.scores(q, 0, keys, 0, 5, 8, 1f, new float[5], 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Attention.scores(q, 0, keys, 0, 4, 8, 1f, out, 1))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Attention.accumulate(new float[3], 0, keys, 0, 4, 8, new float[8], 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Attention.accumulate(new float[4], 0, keys, 0, 4, 8, new float[7], 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Attention.accumulateScalar(new float[4], 0, keys, 0, 4, -1, new float[7], 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Two heads over the same keys and values: each head's scores and output are the one-head kernels' bit for bit. */
    @ParameterizedTest(name = "d={0} n={1}")
    @MethodSource("shapes")
    void pairedHeadsAreTheOneHeadKernelsBitForBit(int d, int n) {
        Random rnd = TestData.random(9000L + 1000L * d + n);
        float[] q = padded(rnd, 3, 2 * d, 2, 1f);
        float[] keys = padded(rnd, 5, n * d, 4, 1f);
        float[] values = padded(rnd, 1, n * d, 2, 1f);
        float scale = (float) (1 / Math.sqrt(d));
        float[] pair = padded(rnd, 2, 2 * n + 1, 3, 9f);
        float[] one = pair.clone();
        Attention.scores2(q, 3, 3 + d, keys, 5, n, d, scale, pair, 2, 3 + n);
        Attention.scores(q, 3, keys, 5, n, d, scale, one, 2);
        Attention.scores(q, 3 + d, keys, 5, n, d, scale, one, 3 + n);
        assertThat(pair).containsExactly(one);
        float[] weights = padded(rnd, 4, 2 * n, 1, 1f);
        float[] outPair = padded(rnd, 6, 2 * d + 5, 2, 9f);
        float[] outOne = outPair.clone();
        Attention.accumulate2(weights, 4, 4 + n, values, 1, n, d, outPair, 6, 11 + d);
        Attention.accumulate(weights, 4, values, 1, n, d, outOne, 6);
        Attention.accumulate(weights, 4 + n, values, 1, n, d, outOne, 11 + d);
        assertThat(outPair).containsExactly(outOne);
    }
}

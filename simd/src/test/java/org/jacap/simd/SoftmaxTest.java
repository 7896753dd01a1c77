package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jacap.simd.TestData.assertClose;
import static org.jacap.simd.TestData.assertSentinels;
import static org.jacap.simd.TestData.padded;

import java.util.Random;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SoftmaxTest {

    /** softmax in double straight from the definition (no max shift: logits are moderate). */
    private static double[] reference(float[] x, int off, int n) {
        double[] p = new double[n];
        double m = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, x[off + i]);
        }
        double s = 0;
        for (int i = 0; i < n; i++) {
            p[i] = Math.exp(x[off + i] - m);
            s += p[i];
        }
        for (int i = 0; i < n; i++) {
            p[i] /= s;
        }
        return p;
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void matchesScalarTwinAndDefinition(int n) {
        Random rnd = TestData.random(3000 + n);
        float[] x = padded(rnd, 2, n, 3, 20f);
        if (n > 2) {
            x[2 + n - 1] = 25f; // the maximum in the tail
        }
        double[] ref = reference(x, 2, n);
        float[] v = x.clone();
        float[] s = x.clone();
        Softmax.inPlace(v, 2, n);
        Softmax.inPlaceScalar(s, 2, n);
        assertClose(s, v, 2, n, 1e-6, 1e-12, "softmax");
        assertSentinels(v, 2, n);
        double sum = 0;
        for (int i = 0; i < n; i++) {
            assertThat((double) v[2 + i]).isCloseTo(ref[i], Offset.offset(1e-6 * ref[i] + 1e-12));
            sum += v[2 + i];
        }
        if (n > 0) {
            assertThat(sum).isCloseTo(1.0, Offset.offset(1e-5));
        }
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void maskedEntriesGetExactlyZero(int n) {
        if (n < 2) {
            return;
        }
        Random rnd = TestData.random(4000 + n);
        float[] x = padded(rnd, 0, n, 0, 5f);
        for (int i = 0; i < n; i += 3) {
            x[i] = Float.NEGATIVE_INFINITY;
        }
        float[] v = x.clone();
        float[] s = x.clone();
        Softmax.inPlace(v, 0, n);
        Softmax.inPlaceScalar(s, 0, n);
        double sum = 0;
        for (int i = 0; i < n; i++) {
            if (i % 3 == 0) {
                assertThat(v[i]).isEqualTo(0f);
                assertThat(s[i]).isEqualTo(0f);
            } else {
                assertThat(v[i]).isPositive();
            }
            sum += v[i];
        }
        assertThat(sum).isCloseTo(1.0, Offset.offset(1e-5));
    }

    @Test
    void degenerateRows() {
        for (boolean vector : new boolean[] {true, false}) {
            float[] one = {TestData.SENTINEL, 42f, TestData.SENTINEL};
            softmax(vector, one, 1, 1);
            assertThat(one).containsExactly(TestData.SENTINEL, 1f, TestData.SENTINEL);

            float[] masked = new float[19];
            java.util.Arrays.fill(masked, Float.NEGATIVE_INFINITY);
            softmax(vector, masked, 0, 19);
            assertThat(masked).containsOnly(0f);

            float[] huge = new float[17];
            float[] shifted = new float[17];
            for (int i = 0; i < 17; i++) {
                huge[i] = 1e4f + i;
                shifted[i] = i;
            }
            softmax(vector, huge, 0, 17);
            softmax(vector, shifted, 0, 17);
            assertClose(shifted, huge, 0, 17, 1e-5, 1e-12, "shift invariance");

            float[] equal = new float[13];
            java.util.Arrays.fill(equal, -3f);
            softmax(vector, equal, 0, 13);
            assertThat(equal).containsOnly(1f / 13);

            float[] empty = {TestData.SENTINEL};
            softmax(vector, empty, 1, 0);
            assertThat(empty).containsExactly(TestData.SENTINEL);
        }
    }

    private static void softmax(boolean vector, float[] x, int off, int n) {
        if (vector) {
            Softmax.inPlace(x, off, n);
        } else {
            Softmax.inPlaceScalar(x, off, n);
        }
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void logSumExpMatchesDefinition(int n) {
        Random rnd = TestData.random(5000 + n);
        float[] x = padded(rnd, 4, n, 1, 30f);
        double direct = Double.NEGATIVE_INFINITY;
        if (n > 0) {
            double s = 0;
            for (int i = 0; i < n; i++) {
                s += Math.exp(x[4 + i]);
            }
            direct = Math.log(s);
        }
        double v = Softmax.logSumExp(x, 4, n);
        double s = Softmax.logSumExpScalar(x, 4, n);
        if (n == 0) {
            assertThat(v).isEqualTo(Double.NEGATIVE_INFINITY);
            assertThat(s).isEqualTo(Double.NEGATIVE_INFINITY);
        } else {
            assertThat(v).isCloseTo(direct, Offset.offset(1e-6 * Math.abs(direct) + 1e-6));
            assertThat(s).isCloseTo(direct, Offset.offset(1e-12 * Math.abs(direct) + 1e-12));
        }
    }

    @Test
    void logSumExpOfLargeAndMaskedValues() {
        float[] x = new float[20];
        java.util.Arrays.fill(x, Float.NEGATIVE_INFINITY);
        assertThat(Softmax.logSumExp(x, 0, 20)).isEqualTo(Double.NEGATIVE_INFINITY);
        x[11] = 1000f;
        x[19] = 1000f;
        assertThat(Softmax.logSumExp(x, 0, 20)).isCloseTo(1000 + Math.log(2), Offset.offset(1e-6));
        assertThat(Softmax.logSumExpScalar(x, 0, 20)).isCloseTo(1000 + Math.log(2), Offset.offset(1e-9));
    }
}

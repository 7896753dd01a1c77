package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jacap.simd.TestData.assertClose;
import static org.jacap.simd.TestData.assertSentinels;
import static org.jacap.simd.TestData.padded;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RmsNormTest {

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void matchesScalarTwinAndDefinition(int n) {
        Random rnd = TestData.random(6000 + n);
        float[] x = padded(rnd, 5, n, 2, 4f);
        float[] w = padded(rnd, 1, n, 0, 2f);
        float eps = 1e-5f;
        for (boolean weighted : new boolean[] {true, false}) {
            float[] ov = padded(rnd, 3, n, 6, 1f);
            java.util.Arrays.fill(ov, 3, 3 + n, 7f);
            float[] os = ov.clone();
            RmsNorm.apply(x, 5, weighted ? w : null, 1, n, eps, ov, 3);
            RmsNorm.applyScalar(x, 5, weighted ? w : null, 1, n, eps, os, 3);
            assertClose(os, ov, 3, n, 1e-6, 0, "rmsnorm");
            assertSentinels(ov, 3, n);
            double ss = 0;
            for (int i = 0; i < n; i++) {
                ss += (double) x[5 + i] * x[5 + i];
            }
            double inv = 1 / Math.sqrt(ss / n + eps);
            for (int i = 0; i < n; i++) {
                double expected = x[5 + i] * inv * (weighted ? w[1 + i] : 1);
                assertThat((double) ov[3 + i])
                        .isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-5 * Math.abs(expected) + 1e-7));
            }
        }
    }

    @Test
    void inPlaceZeroRowsAndEps() {
        float[] x = new float[33];
        float[] w = new float[33];
        java.util.Arrays.fill(w, 2f);
        RmsNorm.apply(x, 0, w, 0, 33, 1e-6f, x, 0);
        assertThat(x).containsOnly(0f); // eps keeps 0/0 away

        float[] y = new float[17];
        java.util.Arrays.fill(y, 3f);
        RmsNorm.apply(y, 0, null, 0, 17, 0f, y, 0);
        assertThat(y).containsOnly(1f);
        java.util.Arrays.fill(y, 3f);
        RmsNorm.apply(y, 0, null, 0, 17, 7f, y, 0); // mean 9, +7 = 16 -> 3/4
        assertThat(y).containsOnly(0.75f);
        RmsNorm.apply(y, 0, null, 0, 0, 1e-5f, y, 0); // n = 0 is a no-op
        assertThat(y).containsOnly(0.75f);
    }

    @Test
    void rowsAreNormalisedIndependently() {
        int n = 19;
        int rows = 4;
        Random rnd = TestData.random(6500);
        float[] x = padded(rnd, 2, n * rows, 3, 5f);
        float[] w = padded(rnd, 0, n, 0, 1f);
        float[] out = new float[n * rows + 1];
        float[] outS = new float[n * rows + 1];
        RmsNorm.applyRows(x, 2, w, 0, n, rows, 1e-6f, out, 1);
        RmsNorm.applyRowsScalar(x, 2, w, 0, n, rows, 1e-6f, outS, 1);
        assertThat(out[0]).isZero();
        for (int b = 0; b < rows; b++) {
            float[] single = new float[n];
            RmsNorm.applyScalar(x, 2 + b * n, w, 0, n, 1e-6f, single, 0);
            for (int i = 0; i < n; i++) {
                assertThat(out[1 + b * n + i])
                        .isCloseTo(single[i], org.assertj.core.data.Offset.offset(1e-6f * (1 + Math.abs(single[i]))));
                assertThat(outS[1 + b * n + i]).isEqualTo(single[i]);
            }
        }
    }
}

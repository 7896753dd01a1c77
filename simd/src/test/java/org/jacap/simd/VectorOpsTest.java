package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jacap.simd.TestData.assertClose;
import static org.jacap.simd.TestData.assertSentinels;
import static org.jacap.simd.TestData.padded;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class VectorOpsTest {

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void dotMatchesScalarAndExactSum(int n) {
        Random rnd = TestData.random(n);
        float[] a = padded(rnd, 3, n, 5, 1f);
        float[] b = padded(rnd, 6, n, 2, 1f);
        double exact = 0;
        double abs = 0;
        for (int i = 0; i < n; i++) {
            exact += (double) a[3 + i] * b[6 + i];
            abs += Math.abs((double) a[3 + i] * b[6 + i]);
        }
        double tol = 1e-6 * abs + 1e-7 * n + 1e-30;
        assertThat((double) VectorOps.dot(a, 3, b, 6, n)).isCloseTo(exact, org.assertj.core.data.Offset.offset(tol));
        assertThat((double) ScalarOps.dot(a, 3, b, 6, n)).isCloseTo(exact, org.assertj.core.data.Offset.offset(tol));
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void axpyMatchesScalar(int n) {
        Random rnd = TestData.random(100 + n);
        float[] x = padded(rnd, 1, n, 3, 2f);
        float[] y = padded(rnd, 4, n, 9, 2f);
        float[] yv = y.clone();
        VectorOps.axpy(-0.75f, x, 1, yv, 4, n);
        ScalarOps.axpy(-0.75f, x, 1, y, 4, n);
        assertClose(y, yv, 4, n, 1e-6, 1e-6, "axpy");
        assertSentinels(yv, 4, n);
        if (n > 0) {
            assertThat(yv[4 + n - 1]).isNotEqualTo(padded(TestData.random(100 + n), 4, n, 9, 2f)[4 + n - 1]);
        }
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void addMulScaleAreExact(int n) {
        Random rnd = TestData.random(200 + n);
        float[] x = padded(rnd, 2, n, 3, 3f);
        float[] y0 = padded(rnd, 5, n, 4, 3f);

        float[] ys = y0.clone();
        float[] yv = y0.clone();
        ScalarOps.add(x, 2, ys, 5, n);
        VectorOps.add(x, 2, yv, 5, n);
        assertThat(yv).containsExactly(ys);
        assertSentinels(yv, 5, n);
        for (int i = 0; i < n; i++) {
            assertThat(yv[5 + i]).isEqualTo(y0[5 + i] + x[2 + i]);
        }

        ys = y0.clone();
        yv = y0.clone();
        ScalarOps.mul(x, 2, ys, 5, n);
        VectorOps.mul(x, 2, yv, 5, n);
        assertThat(yv).containsExactly(ys);
        assertSentinels(yv, 5, n);
        for (int i = 0; i < n; i++) {
            assertThat(yv[5 + i]).isEqualTo(y0[5 + i] * x[2 + i]);
        }

        ys = y0.clone();
        yv = y0.clone();
        ScalarOps.scale(ys, 5, n, 1.7f);
        VectorOps.scale(yv, 5, n, 1.7f);
        assertThat(yv).containsExactly(ys);
        assertSentinels(yv, 5, n);
        for (int i = 0; i < n; i++) {
            assertThat(yv[5 + i]).isEqualTo(y0[5 + i] * 1.7f);
        }
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void sumsAccumulateInDouble(int n) {
        Random rnd = TestData.random(300 + n);
        float[] x = padded(rnd, 7, n, 1, 10f);
        double s = 0;
        double ss = 0;
        for (int i = 0; i < n; i++) {
            float v = x[7 + i];
            s += v;
            ss += (double) (v * v);
        }
        double tol = 1e-12 * (1 + n);
        assertThat(VectorOps.sum(x, 7, n)).isCloseTo(s, org.assertj.core.data.Offset.offset(tol * 10));
        assertThat(ScalarOps.sum(x, 7, n)).isCloseTo(s, org.assertj.core.data.Offset.offset(tol * 10));
        assertThat(VectorOps.sumOfSquares(x, 7, n)).isCloseTo(ss, org.assertj.core.data.Offset.offset(tol * 100));
        assertThat(ScalarOps.sumOfSquares(x, 7, n)).isCloseTo(ss, org.assertj.core.data.Offset.offset(tol * 100));
    }

    @Test
    void sumIsDoublePrecisionWhereFloatWouldLoseIt() {
        // 2^24 + many ones: a float accumulator would stall at 16777216
        float[] x = new float[1025];
        x[0] = 16777216f;
        java.util.Arrays.fill(x, 1, x.length, 1f);
        assertThat(VectorOps.sum(x, 0, x.length)).isEqualTo(16777216.0 + 1024);
        assertThat(ScalarOps.sum(x, 0, x.length)).isEqualTo(16777216.0 + 1024);
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void maxMatchesScalar(int n) {
        Random rnd = TestData.random(400 + n);
        float[] x = padded(rnd, 3, n, 3, 5f);
        float expected = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            expected = Math.max(expected, x[3 + i]);
        }
        assertThat(VectorOps.max(x, 3, n)).isEqualTo(expected);
        assertThat(ScalarOps.max(x, 3, n)).isEqualTo(expected);
        if (n > 0) {
            x[3 + n - 1] = 99f; // the maximum sits in the tail
            assertThat(VectorOps.max(x, 3, n)).isEqualTo(99f);
        }
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void doubleDotAndAxpyMatchScalar(int n) {
        Random rnd = TestData.random(500 + n);
        double[] a = TestData.uniformDouble(rnd, n + 4);
        double[] b = TestData.uniformDouble(rnd, n + 4);
        double s = ScalarOps.dot(a, 1, b, 3, n);
        assertThat(VectorOps.dot(a, 1, b, 3, n)).isCloseTo(s, org.assertj.core.data.Offset.offset(1e-13 * (n + 1)));
        double direct = 0;
        for (int i = 0; i < n; i++) {
            direct += a[1 + i] * b[3 + i];
        }
        assertThat(s).isEqualTo(direct);

        double[] yv = b.clone();
        double[] ys = b.clone();
        VectorOps.axpy(0.3, a, 2, yv, 1, n);
        ScalarOps.axpy(0.3, a, 2, ys, 1, n);
        for (int i = 0; i < yv.length; i++) {
            assertThat(yv[i]).isCloseTo(ys[i], org.assertj.core.data.Offset.offset(1e-15));
        }
        assertThat(yv[0]).isEqualTo(b[0]);
        if (n > 0) {
            assertThat(yv[n]).isNotEqualTo(b[n]);
        }
        for (int i = n + 1; i < yv.length; i++) {
            assertThat(yv[i]).isEqualTo(b[i]);
        }
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void syrUpperUpdatesOnlyTheUpperTriangle(int d) {
        if (d > 300) {
            return;
        }
        Random rnd = TestData.random(600 + d);
        double[] v = TestData.uniformDouble(rnd, d + 2);
        double[] a0 = TestData.uniformDouble(rnd, d * d);
        double[] av = a0.clone();
        double[] as = a0.clone();
        VectorOps.syrUpper(1.5, v, 2, av, d);
        ScalarOps.syrUpper(1.5, v, 2, as, d);
        for (int r = 0; r < d; r++) {
            for (int c = 0; c < d; c++) {
                double expected = c >= r ? a0[r * d + c] + 1.5 * v[2 + r] * v[2 + c] : a0[r * d + c];
                if (!(Math.abs(av[r * d + c] - expected) <= 1e-14) || !(Math.abs(as[r * d + c] - expected) <= 1e-14)) {
                    throw new AssertionError("A[" + r + "][" + c + "]: expected " + expected + ", vector "
                            + av[r * d + c] + ", scalar " + as[r * d + c]);
                }
            }
        }
    }

    @Test
    void syrkUpperEqualsRepeatedRankOneUpdates() {
        for (int d : new int[] {0, 1, 3, 4, 5, 8, 17, 64}) {
            for (int m : new int[] {0, 1, 3, 4, 5, 9}) {
                Random rnd = TestData.random(700L + 31L * d + m);
                double[] w = TestData.uniformDouble(rnd, m + 1);
                double[] v = TestData.uniformDouble(rnd, m * d + 3);
                double[] a0 = TestData.uniformDouble(rnd, d * d);
                double[] av = a0.clone();
                double[] as = a0.clone();
                VectorOps.syrkUpper(w, 1, v, 3, m, d, av);
                ScalarOps.syrkUpper(w, 1, v, 3, m, d, as);
                for (int r = 0; r < d; r++) {
                    for (int c = 0; c < d; c++) {
                        double expected = a0[r * d + c];
                        if (c >= r) {
                            for (int i = 0; i < m; i++) {
                                expected += w[1 + i] * v[3 + i * d + r] * v[3 + i * d + c];
                            }
                        }
                        if (!(Math.abs(av[r * d + c] - expected) <= 1e-13)
                                || !(Math.abs(as[r * d + c] - expected) <= 1e-13)) {
                            throw new AssertionError("d=" + d + " m=" + m + " A[" + r + "][" + c + "]: expected "
                                    + expected + ", vector " + av[r * d + c] + ", scalar " + as[r * d + c]);
                        }
                    }
                }
                VectorOps.copyUpperToLower(av, d);
                for (int r = 0; r < d; r++) {
                    for (int c = 0; c < d; c++) {
                        if (av[r * d + c] != av[c * d + r]) {
                            throw new AssertionError("not symmetric at " + r + ", " + c);
                        }
                    }
                }
            }
        }
    }

    @Test
    void rangesAreCheckedBeforeAnythingIsWritten() {
        float[] small = new float[10];
        float[] y = new float[20];
        assertThatThrownBy(() -> VectorOps.dot(small, 3, y, 0, 8)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> ScalarOps.dot(small, 3, y, 0, 8)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> VectorOps.axpy(1f, y, 0, small, 3, 8)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(small).containsOnly(0f);
        assertThatThrownBy(() -> VectorOps.scale(small, -1, 2, 1f)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> VectorOps.sum(small, 0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> VectorOps.syrUpper(1, new double[3], 0, new double[8], 3))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> VectorOps.syrkUpper(new double[2], 0, new double[5], 0, 2, 3, new double[9]))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void argmaxIsTheFirstLargestLikeTheScalarTwin(int n) {
        Random rnd = TestData.random(900 + n);
        float[] x = padded(rnd, 2, n, 3, 5f);
        for (int i = 0; i < 3; i++) {
            x[2 + n + i] = 99f; // sentinels past the end are larger: never looked at
        }
        int v = VectorOps.argmax(x, 2, n);
        assertThat(v).isEqualTo(ScalarOps.argmax(x, 2, n));
        if (n == 0) {
            assertThat(v).isEqualTo(-1);
            return;
        }
        int best = 0;
        for (int i = 1; i < n; i++) {
            if (x[2 + i] > x[2 + best]) {
                best = i;
            }
        }
        assertThat(v).isEqualTo(best);
        // a tie later in the row keeps the first; a tie in the tail against an earlier one too
        x[2 + n - 1] = x[2 + best];
        assertThat(VectorOps.argmax(x, 2, n)).isEqualTo(best);
        x[2 + n - 1] = 6f;
        assertThat(VectorOps.argmax(x, 2, n)).isEqualTo(n - 1).isEqualTo(ScalarOps.argmax(x, 2, n));
    }

    @Test
    void argmaxOfMaskedAndNaNRows() {
        float[] x = new float[41];
        java.util.Arrays.fill(x, Float.NEGATIVE_INFINITY);
        assertThat(VectorOps.argmax(x, 0, 41)).isZero();
        x[40] = -1e30f;
        assertThat(VectorOps.argmax(x, 0, 41)).isEqualTo(40).isEqualTo(ScalarOps.argmax(x, 0, 41));
        x[7] = Float.NaN;
        x[30] = Float.NaN;
        assertThat(VectorOps.argmax(x, 0, 41)).isEqualTo(7).isEqualTo(ScalarOps.argmax(x, 0, 41));
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void weightedDifferenceMatchesScalarTwin(int n) {
        Random rnd = TestData.random(1300 + n);
        float[] a = padded(rnd, 1, n, 2, 20f);
        float[] b = padded(rnd, 4, n, 1, 20f);
        float[] w = new float[n + 3];
        double abs = 0;
        for (int i = 0; i < n; i++) {
            w[3 + i] = rnd.nextFloat();
            abs += w[3 + i] * Math.abs((double) a[1 + i] - b[4 + i]);
        }
        double v = VectorOps.weightedDifference(w, 3, a, 1, b, 4, n);
        double s = ScalarOps.weightedDifference(w, 3, a, 1, b, 4, n);
        assertThat(v).isCloseTo(s, org.assertj.core.data.Offset.offset(1e-14 * abs + 1e-300));
        if (n > 0) {
            assertThat(v).isNotZero();
        }
        assertThat(VectorOps.weightedDifference(w, 3, a, 1, a, 1, n)).isZero(); // a − a is exactly 0
        assertThatThrownBy(() -> VectorOps.weightedDifference(w, 4, a, 1, b, 4, n))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void allFiniteFindsEveryNonFiniteEntryLikeTheScalarTwin(int n) {
        Random rnd = TestData.random(1700 + n);
        float[] x = padded(rnd, 2, n, 3, 1e30f);
        x[0] = Float.NaN; // outside the range: ignored
        x[2 + n] = Float.POSITIVE_INFINITY;
        assertThat(VectorOps.allFinite(x, 2, n)).isTrue();
        assertThat(ScalarOps.allFinite(x, 2, n)).isTrue();
        for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
            for (int at : new int[] {0, n / 2, n - 1}) {
                if (n == 0) {
                    continue;
                }
                float[] y = x.clone();
                y[2 + at] = bad;
                assertThat(VectorOps.allFinite(y, 2, n)).as("%s at %d", bad, at).isFalse();
                assertThat(ScalarOps.allFinite(y, 2, n)).isFalse();
            }
        }
        float[] max = new float[n];
        java.util.Arrays.fill(max, Float.MAX_VALUE); // finite, and so is their (unused) sum's 0·v
        assertThat(VectorOps.allFinite(max, 0, n)).isTrue();
    }
}

package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jacap.simd.TestData.padded;

import java.util.Random;
import java.util.stream.Stream;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RopeTest {

    /** (headDim, ropeDim) pairs: full, partial (phi/stablelm style), tiny, vector-unaligned. */
    static Stream<Arguments> shapes() {
        int[][] dims = {
            {2, 2},
            {6, 6},
            {8, 8},
            {8, 4},
            {10, 10},
            {16, 16},
            {18, 18},
            {32, 32},
            {34, 34},
            {64, 64},
            {80, 32},
            {96, 64},
            {128, 128},
            {256, 256},
            {64, 0}
        };
        return Stream.of(RopeLayout.values())
                .flatMap(layout -> Stream.of(dims).map(hd -> Arguments.of(hd[0], hd[1], layout)));
    }

    /** The textbook rotation, pairs written out independently of RopeLayout. */
    private static float[] reference(
            float[] x, int off, int nHeads, int headDim, int ropeDim, double base, RopeLayout layout, int pos) {
        float[] y = x.clone();
        int half = ropeDim / 2;
        for (int h = 0; h < nHeads; h++) {
            int b0 = off + h * headDim;
            for (int i = 0; i < half; i++) {
                double theta = pos * Math.pow(base, -2.0 * i / ropeDim);
                int ia = layout == RopeLayout.NORMAL ? 2 * i : i;
                int ib = layout == RopeLayout.NORMAL ? 2 * i + 1 : i + half;
                double a = x[b0 + ia];
                double b = x[b0 + ib];
                y[b0 + ia] = (float) (a * Math.cos(theta) - b * Math.sin(theta));
                y[b0 + ib] = (float) (a * Math.sin(theta) + b * Math.cos(theta));
            }
        }
        return y;
    }

    @ParameterizedTest(name = "headDim={0} ropeDim={1} {2}")
    @MethodSource("shapes")
    void allThreePathsMatchTheDirectFormula(int headDim, int ropeDim, RopeLayout layout) {
        Rope rope = new Rope(headDim, ropeDim, 10000.0, null, layout);
        int nHeads = 3;
        for (int pos : new int[] {0, 1, 7, 513, 32767}) {
            Random rnd = TestData.random(10_000L + 97L * headDim + ropeDim + pos);
            float[] x = padded(rnd, 5, nHeads * headDim, 4, 2f);
            float[] expected = reference(x, 5, nHeads, headDim, ropeDim, 10000.0, layout, pos);

            float[] exact = x.clone();
            rope.apply(exact, 5, nHeads, pos);
            TestData.assertClose(expected, exact, 0, x.length, 1e-6, 1e-6, "apply pos " + pos);

            float[] table = rope.newTable();
            rope.fillTable(pos, table);
            float[] vec = x.clone();
            float[] sca = x.clone();
            rope.rotate(vec, 5, nHeads, table);
            rope.rotateScalar(sca, 5, nHeads, table);
            TestData.assertClose(expected, vec, 0, x.length, 1e-5, 1e-5, "rotate pos " + pos);
            TestData.assertClose(expected, sca, 0, x.length, 1e-5, 1e-5, "rotateScalar pos " + pos);
            TestData.assertClose(sca, vec, 0, x.length, 1e-6, 1e-6, "rotate vs twin pos " + pos);

            for (int h = 0; h < nHeads; h++) {
                for (int c = ropeDim; c < headDim; c++) {
                    int k = 5 + h * headDim + c;
                    assertThat(vec[k]).isEqualTo(x[k]);
                    assertThat(exact[k]).isEqualTo(x[k]);
                }
            }
            TestData.assertSentinels(vec, 5, nHeads * headDim);
            TestData.assertSentinels(exact, 5, nHeads * headDim);
        }
    }

    @ParameterizedTest(name = "headDim={0} ropeDim={1} {2}")
    @MethodSource("shapes")
    void rotationPreservesNormsAndPositionZeroIsIdentity(int headDim, int ropeDim, RopeLayout layout) {
        Rope rope = new Rope(headDim, ropeDim, 500000.0, null, layout);
        Random rnd = TestData.random(11_000L + headDim + ropeDim);
        float[] x = padded(rnd, 0, 2 * headDim, 0, 3f);
        float[] table = rope.newTable();

        float[] y = x.clone();
        rope.fillTable(0, table);
        rope.rotate(y, 0, 2, table);
        assertThat(y).containsExactly(x);
        rope.apply(y, 0, 2, 0);
        assertThat(y).containsExactly(x);

        rope.fillTable(12345, table);
        rope.rotate(y, 0, 2, table);
        for (int i = 0; i < rope.pairCount(); i++) {
            for (int h = 0; h < 2; h++) {
                int a = h * headDim + rope.pairFirst(i);
                int b = h * headDim + rope.pairSecond(i);
                double before = Math.hypot(x[a], x[b]);
                double after = Math.hypot(y[a], y[b]);
                assertThat(after).isCloseTo(before, Offset.offset(1e-6 * (1 + before)));
            }
        }
        if (ropeDim > 0) {
            assertThat(y).isNotEqualTo(x);
        }
    }

    @Test
    void layoutsAreChannelPermutationsOfEachOther() {
        int d = 64;
        Rope normal = new Rope(d, d, 10000, null, RopeLayout.NORMAL);
        Rope neox = new Rope(d, d, 10000, null, RopeLayout.NEOX);
        Random rnd = TestData.random(12_000);
        float[] xn = padded(rnd, 0, d, 0, 1f);
        float[] xx = new float[d];
        for (int i = 0; i < d / 2; i++) { // NEOX channel i <-> NORMAL 2i, NEOX i+d/2 <-> NORMAL 2i+1
            xx[i] = xn[2 * i];
            xx[i + d / 2] = xn[2 * i + 1];
        }
        normal.apply(xn, 0, 1, 77);
        neox.apply(xx, 0, 1, 77);
        for (int i = 0; i < d / 2; i++) {
            assertThat(xx[i]).isEqualTo(xn[2 * i]);
            assertThat(xx[i + d / 2]).isEqualTo(xn[2 * i + 1]);
        }
    }

    @Test
    void frequenciesAndPairs() {
        Rope rope = new Rope(16, 12, 10000.0, null, RopeLayout.NEOX);
        double[] f = rope.invFreq();
        assertThat(f).hasSize(6);
        for (int i = 0; i < 6; i++) {
            assertThat(f[i]).isCloseTo(Math.pow(10000.0, -2.0 * i / 12), Offset.offset(1e-15));
            assertThat(rope.pairFirst(i)).isEqualTo(i);
            assertThat(rope.pairSecond(i)).isEqualTo(i + 6);
            assertThat(rope.angle(10, i)).isEqualTo(10 * f[i]);
        }
        f[0] = 99;
        assertThat(rope.invFreq()[0]).isEqualTo(1.0); // a copy
        Rope normal = new Rope(16, 12, 10000.0, null, RopeLayout.NORMAL);
        assertThat(normal.pairFirst(5)).isEqualTo(10);
        assertThat(normal.pairSecond(5)).isEqualTo(11);
        assertThat(normal.layout()).isEqualTo(RopeLayout.NORMAL);
        assertThat(normal.tableSize()).isEqualTo(24);
        assertThatThrownBy(() -> normal.pairFirst(6)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void frequencyFactorsDivideTheFrequency() {
        int d = 32;
        float[] factors = new float[d / 2];
        for (int i = 0; i < factors.length; i++) {
            factors[i] = 1 + i % 4; // 1, 2, 3, 4, 1, ...
        }
        Rope plain = new Rope(d, d, 500000.0, null, RopeLayout.NORMAL);
        Rope scaled = new Rope(d, d, 500000.0, factors, RopeLayout.NORMAL);
        for (int i = 0; i < d / 2; i++) {
            assertThat(scaled.invFreq()[i]).isCloseTo(plain.invFreq()[i] / factors[i], Offset.offset(1e-18));
        }
        // all factors 2: position 2p under the scaled rope is position p under the plain one
        float[] twos = new float[d / 2];
        java.util.Arrays.fill(twos, 2f);
        Rope halved = new Rope(d, d, 500000.0, twos, RopeLayout.NORMAL);
        float[] a = padded(TestData.random(13_000), 0, d, 0, 1f);
        float[] b = a.clone();
        halved.apply(a, 0, 1, 2 * 321);
        plain.apply(b, 0, 1, 321);
        assertThat(a).containsExactly(b);
        // linear scaling (freqScale) acts like the same division
        Rope linear = new Rope(d, d, 500000.0, 0.5, null, RopeLayout.NORMAL);
        assertThat(linear.invFreq()).containsExactly(halved.invFreq());
    }

    @Test
    void explicitFrequenciesBehaveLikeTheBaseConstructor() {
        Rope base = new Rope(12, 8, 10000.0, null, RopeLayout.NEOX);
        Rope explicit = Rope.withFrequencies(12, base.invFreq(), RopeLayout.NEOX);
        assertThat(explicit.ropeDim()).isEqualTo(8);
        assertThat(explicit.invFreq()).containsExactly(base.invFreq());
        float[] a = padded(TestData.random(13_500), 0, 24, 0, 1f);
        float[] b = a.clone();
        base.apply(a, 0, 2, 99);
        explicit.apply(b, 0, 2, 99);
        assertThat(b).containsExactly(a);
        assertThatThrownBy(() -> Rope.withFrequencies(6, new double[4], RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Rope.withFrequencies(8, new double[] {1, Double.NaN}, RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsBadConfigurations() {
        assertThatThrownBy(() -> new Rope(8, 9, 1e4, null, RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rope(8, 7, 1e4, null, RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rope(0, 0, 1e4, null, RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rope(8, 8, -1, null, RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rope(8, 8, 1e4, new float[3], RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rope(8, 8, 1e4, new float[4], RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rope(8, 8, 1e4, 0.0, null, RopeLayout.NORMAL))
                .isInstanceOf(IllegalArgumentException.class);
        Rope rope = new Rope(8, 8, 1e4, null, RopeLayout.NEOX);
        assertThatThrownBy(() -> rope.rotate(new float[15], 0, 2, rope.newTable()))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> rope.rotate(new float[16], 0, 2, new float[15]))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> rope.apply(new float[16], 1, 2, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}

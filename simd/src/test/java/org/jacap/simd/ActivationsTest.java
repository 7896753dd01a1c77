package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jacap.simd.TestData.assertClose;
import static org.jacap.simd.TestData.assertSentinels;
import static org.jacap.simd.TestData.padded;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ActivationsTest {

    private static final double REL = 2e-6;
    private static final double ABS = 1e-6;

    /** Random values in [-12, 12] with extremes sprinkled in. */
    private static float[] input(Random rnd, int off, int n) {
        float[] x = padded(rnd, off, n, 4, 12f);
        float[] extremes = {-100f, 100f, 0f, -0f, -30f, 30f, 1e-20f, -1e-20f, 5000f, -5000f};
        for (int i = 0; i < n; i += 5) {
            x[off + i] = extremes[(i / 5) % extremes.length];
        }
        return x;
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void siluAndGeluMatchTheirScalarTwins(int n) {
        Random rnd = TestData.random(1000 + n);
        float[] x = input(rnd, 3, n);

        float[] v = x.clone();
        float[] s = x.clone();
        Activations.silu(v, 3, n);
        Activations.siluScalar(s, 3, n);
        assertClose(s, v, 3, n, REL, ABS, "silu");
        assertSentinels(v, 3, n);

        v = x.clone();
        s = x.clone();
        Activations.gelu(v, 3, n);
        Activations.geluScalar(s, 3, n);
        assertClose(s, v, 3, n, REL, ABS, "gelu");
        assertSentinels(v, 3, n);
    }

    @ParameterizedTest
    @MethodSource("org.jacap.simd.TestData#sizes")
    void gatedUnitsMatchTheirScalarTwinsAndLeaveUpAlone(int n) {
        Random rnd = TestData.random(2000 + n);
        float[] gate = input(rnd, 1, n);
        float[] up = padded(rnd, 6, n, 2, 3f);
        float[] upCopy = up.clone();

        float[] v = gate.clone();
        float[] s = gate.clone();
        Activations.swiglu(v, 1, up, 6, n);
        Activations.swigluScalar(s, 1, up, 6, n);
        assertClose(s, v, 1, n, REL, ABS * 3, "swiglu");
        assertSentinels(v, 1, n);

        float[] silu = gate.clone();
        Activations.siluScalar(silu, 1, n);
        for (int i = 0; i < n; i++) {
            assertThat((double) v[1 + i])
                    .isCloseTo(
                            (double) silu[1 + i] * up[6 + i],
                            org.assertj.core.data.Offset.offset(1e-5 * (1 + Math.abs(silu[1 + i] * up[6 + i]))));
        }

        v = gate.clone();
        s = gate.clone();
        Activations.geglu(v, 1, up, 6, n);
        Activations.gegluScalar(s, 1, up, 6, n);
        assertClose(s, v, 1, n, REL, ABS * 3, "geglu");
        assertSentinels(v, 1, n);
        assertThat(up).containsExactly(upCopy);
    }

    @Test
    void knownValues() {
        // reference values computed with the textbook formulas in high precision
        float[] x = {0f, 1f, -1f, 2f, -3f, 0.5f, 10f, -10f, 3f};
        double[] silu = {
            0,
            0.7310585786300049,
            -0.2689414213699951,
            1.7615941559557649,
            -0.14227761953270035,
            0.3112296656009273,
            9.999546021312976,
            -4.5397868702434395e-4,
            2.8577223804673
        };
        double[] gelu = {
            0,
            0.8411919906082768,
            -0.15880800939172324,
            1.954597694087775,
            -0.0036373920817729943,
            0.34571400982514394,
            10.0,
            -0.0,
            2.9963626079182272
        };
        for (boolean vector : new boolean[] {true, false}) {
            float[] xs = new float[16];
            System.arraycopy(x, 0, xs, 0, x.length);
            float[] xg = xs.clone();
            if (vector) {
                Activations.silu(xs, 0, 16);
                Activations.gelu(xg, 0, 16);
            } else {
                Activations.siluScalar(xs, 0, 16);
                Activations.geluScalar(xg, 0, 16);
            }
            for (int i = 0; i < x.length; i++) {
                assertThat((double) xs[i])
                        .as("silu(%s) vector=%s", x[i], vector)
                        .isCloseTo(silu[i], org.assertj.core.data.Offset.offset(2e-6 * Math.abs(silu[i]) + 1e-7));
                assertThat((double) xg[i])
                        .as("gelu(%s) vector=%s", x[i], vector)
                        .isCloseTo(gelu[i], org.assertj.core.data.Offset.offset(2e-6 * Math.abs(gelu[i]) + 1e-7));
            }
        }
    }

    @Test
    void nanPropagates() {
        float[] x = new float[9];
        java.util.Arrays.fill(x, Float.NaN);
        float[] y = x.clone();
        Activations.silu(x, 0, 9);
        Activations.gelu(y, 0, 9);
        for (int i = 0; i < 9; i++) {
            assertThat(x[i]).isNaN();
            assertThat(y[i]).isNaN();
        }
    }
}

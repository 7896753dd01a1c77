package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The softmax exponential: vector and scalar forms give the same bits, and both are e^x rounded to float. */
class AttentionExpTest {

    private static float[] arguments() {
        List<Float> xs = new ArrayList<>();
        for (float x : new float[] {
            0f,
            -0f,
            -Float.MIN_VALUE,
            -1e-30f,
            -1e-8f,
            -0x1p-24f,
            -0.5f,
            -0.34657359f,
            -1f,
            -2.5f,
            -10f,
            -87.3f,
            -103.2f,
            -103.9f,
            -104f,
            -104.00001f,
            -200f,
            Float.NEGATIVE_INFINITY
        }) {
            xs.add(x);
        }
        java.util.Random rnd = TestData.random(31);
        for (int i = 0; i < 20000; i++) {
            xs.add((float) (-rnd.nextDouble() * (i % 2 == 0 ? 1 : 110)));
        }
        float[] out = new float[xs.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = xs.get(i);
        }
        return out;
    }

    @Test
    void vectorAndScalarFormsAgreeBitForBit() {
        float[] x = arguments();
        for (int n : new int[] {x.length, 1, 3, 5, 8, 9}) { // whole vectors and scalar tails
            float[] out = new float[n + 2];
            AttentionExp.exp(x, 0, out, 1, n);
            for (int i = 0; i < n; i++) {
                assertThat(Float.floatToRawIntBits(out[1 + i]))
                        .as("e^%s", x[i])
                        .isEqualTo(Float.floatToRawIntBits(AttentionExp.expScalar(x[i])));
            }
            assertThat(out[0]).isZero();
            assertThat(out[n + 1]).isZero();
        }
    }

    @Test
    void isTheFloatExponential() {
        float[] x = arguments();
        int differ = 0;
        for (float v : x) {
            float expected = (float) Math.exp(v);
            float got = AttentionExp.expScalar(v);
            assertThat(got).as("e^%s", v).isCloseTo(expected, org.assertj.core.data.Offset.offset(Math.ulp(expected)));
            if (got != expected) {
                differ++;
            }
        }
        assertThat(differ).as("results other than Math.exp's rounded").isLessThanOrEqualTo(2);
        assertThat(AttentionExp.expScalar(0f)).isEqualTo(1f);
        assertThat(AttentionExp.expScalar(Float.NEGATIVE_INFINITY)).isZero();
        assertThat(AttentionExp.expScalar(-104.5f)).isZero();
        assertThat(AttentionExp.expScalar(Float.NaN)).isNaN();
    }
}

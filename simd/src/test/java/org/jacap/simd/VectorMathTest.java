package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.Test;

class VectorMathTest {

    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    private static float[] exp(float[] x) {
        float[] y = new float[x.length];
        for (int i = 0; i < x.length; i += F.length()) {
            VectorMath.exp(FloatVector.fromArray(F, x, i)).intoArray(y, i);
        }
        return y;
    }

    @Test
    void expIsWithinThreeUlpOnItsWholeRange() {
        int n = F.length() * 10_000;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = VectorMath.EXP_LO + (VectorMath.EXP_HI - VectorMath.EXP_LO) * i / (n - 1);
        }
        float[] y = exp(x);
        double worstUlps = 0;
        for (int i = 0; i < n; i++) {
            double e = Math.exp(x[i]);
            double ulps = Math.abs(y[i] - e) / Math.ulp((float) e);
            worstUlps = Math.max(worstUlps, ulps);
        }
        assertThat(worstUlps).isLessThan(3.0);
    }

    @Test
    void expEdgeCases() {
        float[] x = new float[Math.max(16, F.length() * 2)];
        float[] special = {
            0f,
            -0f,
            1f,
            -1f,
            Float.NEGATIVE_INFINITY,
            Float.POSITIVE_INFINITY,
            Float.NaN,
            -100f,
            100f,
            -87.5f,
            88.5f,
            1e-10f,
            -1e-10f,
            0.5f,
            -0.3465736f,
            0.3465736f
        };
        System.arraycopy(special, 0, x, 0, special.length);
        float[] y = exp(x);
        assertThat(y[0]).isEqualTo(1f);
        assertThat(y[1]).isEqualTo(1f);
        assertThat(y[2]).isCloseTo((float) Math.E, org.assertj.core.data.Offset.offset(3e-7f));
        assertThat(y[3]).isCloseTo((float) (1 / Math.E), org.assertj.core.data.Offset.offset(1e-7f));
        assertThat(y[4]).isEqualTo(0f);
        assertThat(y[5]).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(y[6]).isNaN();
        assertThat(y[7]).isEqualTo(0f);
        assertThat(y[8]).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(y[9]).isEqualTo(0f);
        assertThat(y[10]).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(y[11]).isEqualTo(1f);
        assertThat(y[12]).isEqualTo(1f);
        for (int i = 13; i < special.length; i++) {
            assertThat((double) y[i]).isCloseTo(Math.exp(x[i]), org.assertj.core.data.Offset.offset(3e-7));
        }
    }
}

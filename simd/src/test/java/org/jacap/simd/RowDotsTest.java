package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The grouped row dots against their scalar twin (this CPU's lane count), row counts and widths with tails. */
class RowDotsTest {

    private static float[] gaussian(Random rnd, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) rnd.nextGaussian();
        }
        return x;
    }

    @Test
    void groupedDotsEqualTheScalarTwinBitForBit() {
        Random rnd = TestData.random(21);
        int lanes = VectorOps.F_PREFERRED.length();
        for (int d : new int[] {1, 3, 7, 8, 9, 16, 17, 31, 64, 65, 128, 255, 256}) {
            for (int n : new int[] {1, 2, 7, 8, 9, 16, 17, 33}) {
                float[] q = gaussian(rnd, d + 2);
                float[] k = gaussian(rnd, n * d + 3);
                float[] out = new float[n + 2 + RowDots.GROUP];
                java.util.Arrays.fill(out, TestData.SENTINEL);
                RowDots.scores(q, 2, k, 3, n, d, 0.125f, out, 1);
                float[] twin = new float[n + 2];
                RowDots.scoresScalar(q, 2, k, 3, n, d, 0.125f, twin, 1, lanes);
                for (int r = 0; r < n; r++) {
                    assertThat(Float.floatToRawIntBits(out[1 + r]))
                            .as("d %d n %d row %d", d, n, r)
                            .isEqualTo(Float.floatToRawIntBits(twin[1 + r]));
                    // one row at a time (the order of a row's sum does not depend on its group)
                    float[] alone = new float[1];
                    RowDots.scores(q, 2, k, 3 + r * d, 1, d, 0.125f, alone, 0);
                    assertThat(alone[0]).isEqualTo(out[1 + r]);
                }
                assertThat(out[0]).isEqualTo(TestData.SENTINEL);
            }
        }
    }

    @Test
    void scalarTwinIsTheDotProductWithinRounding() {
        Random rnd = TestData.random(22);
        for (int lanes : new int[] {8, 16}) {
            float[] q = gaussian(rnd, 67);
            float[] k = gaussian(rnd, 67 * 3);
            float[] out = new float[3];
            RowDots.scoresScalar(q, 0, k, 0, 3, 67, 1f, out, 0, lanes);
            for (int r = 0; r < 3; r++) {
                double exact = 0;
                double bound = 0;
                for (int c = 0; c < 67; c++) {
                    exact += (double) q[c] * k[r * 67 + c];
                    bound += Math.abs((double) q[c] * k[r * 67 + c]);
                }
                assertThat((double) out[r]).isCloseTo(exact, org.assertj.core.data.Offset.offset(67 * 0x1p-24 * bound));
            }
        }
    }
}

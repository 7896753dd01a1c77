package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class Q8_1CorrectionsTest {

    /** Token counts below, at and past a vector's lanes (8 or 16), so the scalar tail runs too. */
    @ParameterizedTest
    @CsvSource({"1, 1", "7, 18", "8, 18", "16, 3", "17, 48", "37, 5", "512, 18"})
    void theVectorFormHasTheScalarTwinsBits(int batch, int blocks) {
        int rows = 3;
        int outOff = 2;
        float[] minima = Blocks.gaussian(blocks, 11L * batch + blocks, 0.05f);
        float[] c = Blocks.gaussian(blocks * batch, 7L * batch + blocks, 0.3f);
        float[] base = Blocks.gaussian(outOff + batch * rows + 1, 3, 4f);
        for (int r = 0; r < rows; r++) {
            float[] vector = base.clone();
            float[] scalar = base.clone();
            Q8_1Corrections.addRow(minima, c, blocks, batch, new float[batch], vector, outOff, rows, r);
            Q8_1Corrections.addRowScalar(minima, c, blocks, batch, scalar, outOff, rows, r);
            assertThat(vector).as("row %d", r).containsExactly(scalar);
            // only row r of every token moved, by Σ_b m_b·c[b][t]
            for (int t = 0; t < batch; t++) {
                double expected = 0;
                for (int b = 0; b < blocks; b++) {
                    expected += (double) minima[b] * c[b * batch + t];
                }
                int i = outOff + t * rows + r;
                assertThat((double) vector[i] - base[i]).isCloseTo(expected, within(1e-4));
            }
            for (int i = 0; i < base.length; i++) {
                boolean ours = i >= outOff && i < outOff + batch * rows && (i - outOff) % rows == r;
                if (!ours) {
                    assertThat(vector[i]).as("untouched %d", i).isEqualTo(base[i]);
                }
            }
        }
    }
}

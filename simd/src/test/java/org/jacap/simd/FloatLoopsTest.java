package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The shared float loops against their scalar twins, on lengths that leave partial vectors. */
class FloatLoopsTest {

    @Test
    void prefillTileEqualsItsScalarTwinBitForBit() {
        for (int n : new int[] {1, 2, 7, 8, 9, 33, 255, 1024}) {
            int stride = n + 3; // rows not adjacent, as in the chunked scratch
            float[] w = Blocks.gaussian(6 * stride + 5, n, 1f);
            float[] xp = Blocks.gaussian(16 * n + 16 + 11, n + 1, 1f);
            float[] fast = new float[96];
            float[] slow = new float[96];
            FloatLoops.tile6x16(w, 5, stride, xp, 11, n, fast);
            FloatLoops.tile6x16Scalar(w, 5, stride, xp, 11, n, slow);
            assertThat(fast).as("n = %d", n).containsExactly(slow);
            // and it is the product it claims to be
            for (int r = 0; r < 6; r++) {
                for (int t = 0; t < 16; t++) {
                    double s = 0;
                    for (int k = 0; k < n; k++) {
                        s += (double) w[5 + r * stride + k] * xp[11 + 16 * k + t];
                    }
                    assertThat((double) fast[r * 16 + t]).isCloseTo(s, within(1e-4 * Math.max(1, Math.sqrt(n))));
                }
            }
        }
    }

    @Test
    void wideTileEqualsTwoNarrowTilesBitForBit() {
        for (int n : new int[] {1, 2, 7, 9, 33, 255, 1024}) {
            int stride = n + 3;
            float[] w = Blocks.gaussian(6 * stride + 5, n, 1f);
            float[] xp = Blocks.gaussian(2 * 16 * n + 40, n + 2, 1f);
            int xa = 11;
            int xb = 11 + 16 * n + 7; // the second group anywhere after the first, as in the packed panel
            float[] wide = new float[192];
            float[] a = new float[96];
            float[] b = new float[96];
            FloatLoops.tile6x32(w, 5, stride, xp, xa, xb, n, wide);
            FloatLoops.tile6x16Scalar(w, 5, stride, xp, xa, n, a);
            FloatLoops.tile6x16Scalar(w, 5, stride, xp, xb, n, b);
            assertThat(java.util.Arrays.copyOfRange(wide, 0, 96))
                    .as("n = %d", n)
                    .containsExactly(a);
            assertThat(java.util.Arrays.copyOfRange(wide, 96, 192))
                    .as("n = %d", n)
                    .containsExactly(b);
        }
    }

    /** The column-major 8-row tile (a repacked group) is its scalar twin bit for bit, and the row-major tile on the same weights. */
    @Test
    void columnMajorTileIsItsScalarTwinAndTheRowMajorTile() {
        for (int n : new int[] {1, 2, 7, 33, 255, 1024}) {
            float[] w = Blocks.gaussian(32 * n + 8, n, 1f);
            float[] xp = Blocks.gaussian(2 * 16 * n + 40, n + 2, 1f);
            int xa = 11;
            int xb = 11 + 16 * n + 7;
            for (int wOff : new int[] {0, 8, 24}) {
                float[] vec = new float[256];
                float[] twin = new float[256];
                FloatLoops.tile8x32T(w, wOff, xp, xa, xb, n, vec, 0);
                FloatLoops.tile8x32TScalar(w, wOff, xp, xa, xb, n, twin, 0);
                assertThat(vec).as("n = %d, wOff = %d", n, wOff).containsExactly(twin);
                // k split in two calls that continue the sums (at an offset): the same bits
                int h = n / 2;
                for (boolean vectorized : new boolean[] {true, false}) {
                    float[] split = new float[5 + 256];
                    if (vectorized) {
                        FloatLoops.tile8x32T(w, wOff, xp, xa, xb, h, split, 5);
                        FloatLoops.tile8x32T(w, wOff + 32 * h, xp, xa + 16 * h, xb + 16 * h, n - h, split, 5);
                    } else {
                        FloatLoops.tile8x32TScalar(w, wOff, xp, xa, xb, h, split, 5);
                        FloatLoops.tile8x32TScalar(w, wOff + 32 * h, xp, xa + 16 * h, xb + 16 * h, n - h, split, 5);
                    }
                    assertThat(java.util.Arrays.copyOfRange(split, 5, 261))
                            .as("n = %d split at %d", n, h)
                            .containsExactly(vec);
                }
                // rows wOff..wOff+5 laid out row-major: the 6-row tile gives the same sums
                float[] rowMajor = new float[6 * n];
                for (int r = 0; r < 6; r++) {
                    for (int k = 0; k < n; k++) {
                        rowMajor[r * n + k] = w[wOff + 32 * k + r];
                    }
                }
                float[] six = new float[192];
                FloatLoops.tile6x32(rowMajor, 0, n, xp, xa, xb, n, six);
                assertThat(java.util.Arrays.copyOfRange(vec, 0, 96))
                        .containsExactly(java.util.Arrays.copyOfRange(six, 0, 96));
                assertThat(java.util.Arrays.copyOfRange(vec, 128, 224))
                        .containsExactly(java.util.Arrays.copyOfRange(six, 96, 192));
            }
        }
    }

    @Test
    void packTransposesSixteenTokensAndZeroesTheMissingOnes() {
        int cols = 5;
        float[] x = new float[3 + 20 * cols];
        for (int i = 0; i < x.length; i++) {
            x[i] = i;
        }
        float[] xp = new float[2 + 16 * cols];
        java.util.Arrays.fill(xp, Float.NaN);
        FloatLoops.pack(x, 3, cols, 16, 20, xp, 2); // tokens 16..19 exist, 20..31 do not
        for (int k = 0; k < cols; k++) {
            for (int t = 0; t < 16; t++) {
                float expected = 16 + t < 20 ? x[3 + (16 + t) * cols + k] : 0f;
                assertThat(xp[2 + 16 * k + t]).as("k %d t %d", k, t).isEqualTo(expected);
            }
        }
        assertThat(xp[0]).isNaN();
    }

    @Test
    void dotEqualsFloat64SumOnEveryTailLength() {
        for (int n = 0; n <= 70; n++) {
            float[] a = Blocks.gaussian(n + 3, n, 1f);
            float[] b = Blocks.gaussian(n + 1, n + 100, 1f);
            double s = 0;
            for (int i = 0; i < n; i++) {
                s += (double) a[3 + i] * b[1 + i];
            }
            assertThat((double) FloatLoops.dot(a, 3, b, 1, n)).as("n = %d", n).isCloseTo(s, within(1e-4));
            assertThat((double) FloatLoops.dotScalar(a, 3, b, 1, n))
                    .as("scalar n = %d", n)
                    .isCloseTo(s, within(1e-4));
        }
    }
}

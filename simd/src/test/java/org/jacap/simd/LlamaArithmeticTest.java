package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

/** The pieces of llama.cpp's arithmetic that native precision reproduces, and the fixed-order lane sums. */
class LlamaArithmeticTest {

    @Test
    void laneSumsEqualTheirScalarTwinBitForBit() {
        Random rnd = new Random(7);
        float[] a = new float[64];
        for (int trial = 0; trial < 2000; trial++) {
            for (int i = 0; i < a.length; i++) {
                // mixed magnitudes, so that the order of the additions shows in the last bits
                a[i] = (float) (rnd.nextGaussian() * Math.pow(10, rnd.nextInt(7) - 3));
            }
            FloatVector p = FloatVector.fromArray(VectorOps.F_PREFERRED, a, 0);
            assertThat(Float.floatToRawIntBits(LaneSums.sum(p)))
                    .isEqualTo(Float.floatToRawIntBits(LaneSums.sumScalar(p)));
            FloatVector h = FloatVector.fromArray(FloatVector.SPECIES_256, a, 0);
            assertThat(Float.floatToRawIntBits(LaneSums.sum256(h)))
                    .isEqualTo(Float.floatToRawIntBits(LaneSums.sumScalar(h)));
        }
        // The tree order itself: ((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7)) for 8 lanes.
        float[] x = {1e8f, 1f, -1e8f, 1f, 1f, 1f, 1f, 1f};
        float expected = ((x[0] + x[4]) + (x[2] + x[6])) + ((x[1] + x[5]) + (x[3] + x[7]));
        assertThat(LaneSums.sum256(FloatVector.fromArray(FloatVector.SPECIES_256, x, 0)))
                .isEqualTo(expected);
    }

    @Test
    void geluTableIsTheF16RoundedFormulaOfTheF16RoundedInput() {
        for (int h = 0; h < 1 << 16; h++) {
            float x = Float.float16ToFloat((short) h);
            if (!Float.isFinite(x)) {
                continue;
            }
            float expected;
            if (x <= -10f) {
                expected = 0f;
            } else if (x >= 10f) {
                expected = x;
            } else {
                double g = 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * x * (1 + 0.044715 * x * x)));
                expected = Float.float16ToFloat(Float.floatToFloat16((float) g));
            }
            // The table evaluates the formula in float, as ggml does: one F16 step from the double formula,
            // or a few subnormal F16 steps (6e-8 each) where 1 + tanh cancels in float (x near -5).
            float got = GeluTable.gelu(x);
            float ulp = Math.ulp(Float.float16ToFloat(Float.floatToFloat16(expected))) * 8192f;
            assertThat(Math.abs(got - expected)).as("x = %s", x).isLessThanOrEqualTo(Math.max(ulp, 2.5e-7f));
            assertThat(Float.float16ToFloat(Float.floatToFloat16(got)))
                    .as("an F16 value")
                    .isEqualTo(got);
        }
        // Inputs between F16 values take the entry of their rounding.
        assertThat(GeluTable.gelu(1.00001f)).isEqualTo(GeluTable.gelu(1f));
        assertThat(GeluTable.gelu(12.5f)).isEqualTo(12.5f);
        assertThat(GeluTable.gelu(-11f)).isZero();
    }

    /** The vector accumulator rounds each lane as the scalar twin rounds each element: the same bits. */
    @Test
    void halfOnlineAttentionEqualsItsScalarTwinBitForBit() {
        Random rnd = new Random(11);
        for (int d : new int[] {1, 7, 8, 9, 16, 17, 64, 67, 256}) {
            // past CHUNK_ROWS: chunks folded, the last one short (1025) or whole (2048)
            for (int n :
                    new int[] {1, 2, 5, 33, 300, HalfOnlineAttention.CHUNK_ROWS + 1, 2 * HalfOnlineAttention.CHUNK_ROWS
                    }) {
                float[] q = f16(gaussian(rnd, d));
                float[] k = f16(gaussian(rnd, n * d));
                float[] v = f16(gaussian(rnd, n * d));
                for (int i = 0; i < v.length; i += 7) {
                    v[i] *= 3000; // large values: the F16 rounding of the sums matters, overflow included
                }
                float scale = (float) (4 / Math.sqrt(d)); // peaked rows: many maximum updates
                assertAttendIsItsTwin(q, k, v, n, d, scale);
            }
        }
    }

    /** {@code attend} gives {@code attendScalar}'s bits (NaN where the twin's is NaN). */
    private static void assertAttendIsItsTwin(float[] q, float[] k, float[] v, int n, int d, float scale) {
        float[] out = new float[d + 2];
        float[] twin = new float[d + 2];
        HalfOnlineAttention.attend(
                q, 0, k, 0, v, 0, n, d, d, scale, new float[HalfOnlineAttention.stateSize(d, d)], out, 1);
        HalfOnlineAttention.attendScalar(q, 0, k, 0, v, 0, n, d, d, scale, new float[2 * d], twin, 1);
        for (int c = 0; c < out.length; c++) {
            if (Float.isNaN(twin[c])) { // an overflowed accumulator times 0: NaN either way
                assertThat(out[c]).as("d %d n %d c %d", d, n, c).isNaN();
            } else {
                assertThat(Float.floatToRawIntBits(out[c]))
                        .as("d %d n %d c %d", d, n, c)
                        .isEqualTo(Float.floatToRawIntBits(twin[c]));
            }
        }
    }

    /**
     * Under the bound (values of ordinary size) the accumulator takes the cheap rounding: the
     * twin's bits, with peaked rows for many rescales and columns of tiny values for zeros of
     * either sign.
     */
    @Test
    void halfOnlineAttentionEqualsItsScalarTwinUnderTheBound() {
        Random rnd = new Random(12);
        for (int d : new int[] {32, 64, 96, 128}) {
            for (int n : new int[] {1, 5, 64, 65, 300, HalfOnlineAttention.CHUNK_ROWS + 3}) {
                float[] q = f16(gaussian(rnd, d));
                float[] k = f16(gaussian(rnd, n * d));
                float[] v = f16(gaussian(rnd, n * d));
                for (int i = 0; i < v.length; i++) {
                    if (i % d % 7 == 0) { // columns of F16 subnormals: their lanes round to zeros of both signs
                        v[i] = HalfFloats.roundToF16(v[i] * 1e-7f);
                    }
                }
                assertAttendIsItsTwin(q, k, v, n, d, (float) (6 / Math.sqrt(d)));
            }
        }
    }

    /**
     * Accumulators driven next to F16's overflow: values whose sums stay just inside the cheap
     * rounding's bound, and just outside it where lanes do overflow. Three heads of one KV head
     * visited together in tiles with the caller's bound, and each head alone in one call, give
     * the scalar twin's bits.
     */
    @Test
    void halfOnlineAttentionKeepsTheTwinsBitsNearF16OverflowForHeadsTogether() {
        Random rnd = new Random(5);
        int d = 37; // a tail past whole vectors at both widths
        int heads = 3;
        int size = HalfOnlineAttention.stateSize(d, d);
        for (float big : new float[] {6_000f, 24_000f, 40_000f, 65_000f}) {
            for (int n : new int[] {2, 7, 64, 300}) {
                float[] q = f16(gaussian(rnd, heads * d));
                float[] k = f16(gaussian(rnd, n * d));
                float[] v = f16(gaussian(rnd, n * d));
                for (int i = 0; i < v.length; i += 3) {
                    v[i] = HalfFloats.roundToF16(big * Math.signum(v[i]));
                }
                float scale = 0.01f; // flat rows: the weights stay near 1 and the sums grow
                float[] state = new float[heads * size];
                for (int h = 0; h < heads; h++) {
                    HalfOnlineAttention.begin(q, h * d, d, d, state, h * size);
                }
                for (int r = 0; r < n; r += 5) { // tiles of 5 rows, each with its own bound
                    int rows = Math.min(5, n - r);
                    float bound = HalfOnlineAttention.largestMagnitude(v, r * d, rows * d);
                    HalfOnlineAttention.updateHeads(state, 0, heads, d, d, k, r * d, v, r * d, rows, scale, bound);
                }
                for (int h = 0; h < heads; h++) {
                    float[] twin = new float[d];
                    HalfOnlineAttention.attendScalar(q, h * d, k, 0, v, 0, n, d, d, scale, new float[2 * d], twin, 0);
                    float[] alone = new float[d];
                    HalfOnlineAttention.attend(q, h * d, k, 0, v, 0, n, d, d, scale, new float[size], alone, 0);
                    float[] together = new float[d];
                    HalfOnlineAttention.finish(state, h * size, d, d, together, 0);
                    for (int c = 0; c < d; c++) {
                        int expected = Float.floatToRawIntBits(twin[c]);
                        String at = String.format("big %s n %d head %d c %d", big, n, h, c);
                        if (Float.isNaN(twin[c])) {
                            assertThat(alone[c]).as(at).isNaN();
                            assertThat(together[c]).as(at).isNaN();
                        } else {
                            assertThat(Float.floatToRawIntBits(alone[c])).as(at).isEqualTo(expected);
                            assertThat(Float.floatToRawIntBits(together[c]))
                                    .as(at)
                                    .isEqualTo(expected);
                        }
                    }
                }
            }
        }
    }

    @Test
    void largestMagnitudeIsTheLargestAbsoluteValueAndSeesNonFiniteValues() {
        float[] a = new float[37];
        for (int i = 0; i < a.length; i++) {
            a[i] = (i % 2 == 0 ? 1 : -1) * i * 0.5f;
        }
        assertThat(HalfOnlineAttention.largestMagnitude(a, 0, 37)).isEqualTo(18f);
        assertThat(HalfOnlineAttention.largestMagnitude(a, 3, 30)).isEqualTo(16f); // index 32's, the last of the range
        a[35] = -100f; // in the tail at both widths
        assertThat(HalfOnlineAttention.largestMagnitude(a, 0, 37)).isEqualTo(100f);
        a[1] = Float.NEGATIVE_INFINITY;
        assertThat(HalfOnlineAttention.largestMagnitude(a, 0, 37)).isEqualTo(Float.POSITIVE_INFINITY);
        a[2] = Float.NaN;
        assertThat(HalfOnlineAttention.largestMagnitude(a, 0, 37)).isNaN();
        assertThat(HalfOnlineAttention.largestMagnitude(a, 3, 0)).isZero();
    }

    @Test
    void halfOnlineAttentionIsAttentionWithinF16Accumulation() {
        Random rnd = new Random(3);
        for (int d : new int[] {1, 7, 16, 64, 67, 256}) {
            for (int n : new int[] {1, 2, 5, 33, 130, 2500}) { // 2500: three chunks folded
                float[] q = f16(gaussian(rnd, d));
                float[] k = f16(gaussian(rnd, n * d));
                float[] v = f16(gaussian(rnd, n * d));
                float scale = (float) (1 / Math.sqrt(d));
                float[] out = new float[d + 2];
                HalfOnlineAttention.attend(
                        q, 0, k, 0, v, 0, n, d, d, scale, new float[HalfOnlineAttention.stateSize(d, d)], out, 1);
                double[] ref = exact(q, k, v, n, d, scale);
                double vmax = 0;
                for (float x : v) {
                    vmax = Math.max(vmax, Math.abs(x));
                }
                for (int c = 0; c < d; c++) {
                    // F16 accumulator: each of n updates rounds by up to 2^-11 of the running sum, which
                    // is bounded by the largest value; the errors add up like a random walk.
                    double tol = 1e-3 * Math.sqrt(n) * (Math.abs(ref[c]) + vmax);
                    assertThat((double) out[1 + c])
                            .as("d %d n %d c %d", d, n, c)
                            .isCloseTo(ref[c], org.assertj.core.data.Offset.offset(tol));
                }
                if (n == 1) { // one key: the output is its value row exactly
                    for (int c = 0; c < d; c++) {
                        assertThat(out[1 + c]).isEqualTo(v[c]);
                    }
                }
                assertThat(out[0]).isZero();
                assertThat(out[d + 1]).isZero();
            }
        }
    }

    private static double[] exact(float[] q, float[] k, float[] v, int n, int d, float scale) {
        double[] s = new double[n];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < n; j++) {
            double dot = 0;
            for (int c = 0; c < d; c++) {
                dot += (double) q[c] * k[j * d + c];
            }
            s[j] = dot * scale;
            max = Math.max(max, s[j]);
        }
        double sum = 0;
        for (int j = 0; j < n; j++) {
            s[j] = Math.exp(s[j] - max);
            sum += s[j];
        }
        double[] out = new double[d];
        for (int j = 0; j < n; j++) {
            for (int c = 0; c < d; c++) {
                out[c] += s[j] / sum * v[j * d + c];
            }
        }
        return out;
    }

    private static float[] gaussian(Random rnd, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) rnd.nextGaussian();
        }
        return x;
    }

    private static float[] f16(float[] x) {
        HalfFloats.roundToF16(x, 0, x.length);
        return x;
    }
}

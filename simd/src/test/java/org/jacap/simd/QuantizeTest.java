package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Quantizers: error bounds on round trips, special blocks, and agreement with the activation rounding. */
class QuantizeTest {

    static float[] dequantize(GgmlType t, byte[] q, int n) {
        float[] out = new float[n];
        Kernels.of(t).dequantizeScalar(MemorySegment.ofArray(q), 0, out, 0, n);
        return out;
    }

    /** Gaussian data with a few outliers and some blocks of tiny, constant or zero values. */
    static float[] awkward(int n, long seed) {
        Random rnd = new Random(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) rnd.nextGaussian();
        }
        for (int i = 0; i < n; i += 97) {
            x[i] *= 20;
        }
        for (int i = 0; i < Math.min(n, 256); i++) {
            x[i] = 0f; // first super-block all zero
        }
        if (n >= 768) {
            for (int i = 256; i < 512; i++) {
                x[i] = 1e-6f * (float) rnd.nextGaussian(); // tiny
            }
            for (int i = 512; i < 768; i++) {
                x[i] = 0.75f; // constant
            }
        }
        return x;
    }

    @Test
    void q8_0ErrorIsAtMostHalfAStep() {
        float[] x = awkward(4096, 1);
        float[] y = dequantize(GgmlType.Q8_0, Quantize.toBytes(GgmlType.Q8_0, x), x.length);
        for (int b = 0; b < x.length; b += 32) {
            float amax = 0;
            for (int j = 0; j < 32; j++) {
                amax = Math.max(amax, Math.abs(x[b + j]));
            }
            float d = amax / 127;
            for (int j = 0; j < 32; j++) {
                // half a step, plus the f16 rounding of d carried through |q| <= 127
                double bound = 0.5 * d + 127 * Math.abs(d - HalfFloats.roundToF16(d)) + 1e-30;
                assertThat((double) Math.abs(x[b + j] - y[b + j]))
                        .as("element %d", b + j)
                        .isLessThanOrEqualTo(bound);
            }
        }
    }

    @Test
    void q4_0ErrorIsHalfAStepExceptTheClampedEnd() {
        float[] x = awkward(4096, 2);
        float[] y = dequantize(GgmlType.Q4_0, Quantize.toBytes(GgmlType.Q4_0, x), x.length);
        for (int b = 0; b < x.length; b += 32) {
            float max = 0;
            for (int j = 0; j < 32; j++) {
                if (Math.abs(x[b + j]) > Math.abs(max)) {
                    max = x[b + j];
                }
            }
            float d = Math.abs(max / 8);
            double f16 = 8 * Math.abs(d - Math.abs(HalfFloats.roundToF16(max / -8)));
            for (int j = 0; j < 32; j++) {
                double err = Math.abs(x[b + j] - y[b + j]);
                // the level -8d is the block's own extreme, +8d does not exist: values near -max lose a full step
                boolean clamped = x[b + j] * Math.signum(max) < -7.5f * d;
                double bound = (clamped ? d : 0.5 * d) + f16 + 1e-30;
                if (!(err <= bound * (1 + 1e-6))) {
                    fail("element " + (b + j) + ": " + x[b + j] + " -> " + y[b + j] + ", error " + err + " > " + bound);
                }
            }
        }
    }

    /** RMS error relative to the RMS of the data, on Gaussian rows. */
    static double relativeRms(GgmlType t, float[] x) {
        float[] y = dequantize(t, Quantize.toBytes(t, x), x.length);
        double e = 0;
        double s = 0;
        for (int i = 0; i < x.length; i++) {
            e += (x[i] - y[i]) * (double) (x[i] - y[i]);
            s += x[i] * (double) x[i];
        }
        return Math.sqrt(e / s);
    }

    @Test
    void kQuantRoundTripsStayWithinTheirRmsBounds() {
        float[] x = Blocks.gaussian(256 * 64, 3, 1f);
        // measured on this data: Q4_K .071, Q5_K .036, Q6_K .018, Q8_K .0069, Q8_0 .0053, Q4_0 .085,
        // Q4_1 .077, Q5_0 .042, Q5_1 .038, F16 2.1e-4, BF16 1.7e-3; bounds at 0.5x .. 1.25x
        assertThat(relativeRms(GgmlType.Q4_K, x)).isBetween(0.035, 0.09);
        assertThat(relativeRms(GgmlType.Q5_K, x)).isBetween(0.018, 0.045);
        assertThat(relativeRms(GgmlType.Q6_K, x)).isBetween(0.009, 0.022);
        assertThat(relativeRms(GgmlType.Q8_K, x)).isBetween(0.0035, 0.0086);
        assertThat(relativeRms(GgmlType.Q8_0, x)).isBetween(0.0026, 0.0066);
        assertThat(relativeRms(GgmlType.Q4_0, x)).isBetween(0.043, 0.107);
        assertThat(relativeRms(GgmlType.Q4_1, x)).isBetween(0.039, 0.097);
        assertThat(relativeRms(GgmlType.Q5_0, x)).isBetween(0.021, 0.053);
        assertThat(relativeRms(GgmlType.Q5_1, x)).isBetween(0.019, 0.047);
        assertThat(relativeRms(GgmlType.F16, x)).isBetween(1e-4, 3e-4);
        assertThat(relativeRms(GgmlType.BF16, x)).isBetween(8e-4, 2.2e-3);
        assertThat(relativeRms(GgmlType.F32, x)).isZero();
    }

    @ParameterizedTest
    @EnumSource(
            value = GgmlType.class,
            names = {"Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q4_K", "Q5_K", "Q6_K", "Q8_K"})
    void specialBlocksRoundTripSensibly(GgmlType t) {
        float[] x = awkward(1024, 4);
        float[] y = dequantize(t, Quantize.toBytes(t, x), x.length);
        for (int i = 0; i < 256; i++) {
            assertThat(y[i]).as("%s all-zero block element %d", t, i).isEqualTo(0f);
        }
        for (int i = 256; i < 512; i++) {
            assertThat(Math.abs(y[i] - x[i])).as("%s tiny block", t).isLessThan(1e-5f);
        }
        for (int i = 512; i < 768; i++) {
            assertThat(Math.abs(y[i] - 0.75f))
                    .as("%s constant block element %d", t, i)
                    .isLessThan(0.1f);
        }
        for (float v : y) {
            assertThat(Float.isFinite(v)).isTrue();
        }
    }

    @Test
    void q8KQuantizerAgreesWithTheActivationRounding() {
        float[] x = awkward(1024, 5);
        float[] viaBytes = dequantize(GgmlType.Q8_K, Quantize.toBytes(GgmlType.Q8_K, x), x.length);
        float[] viaRound = new float[x.length];
        VecDotType.Q8_K.round(x, 0, viaRound, 0, x.length);
        assertThat(viaRound).containsExactly(viaBytes);
        // group sums are stored
        byte[] q = Quantize.toBytes(GgmlType.Q8_K, x);
        MemorySegment seg = MemorySegment.ofArray(q);
        long block = 3 * 292L;
        for (int g = 0; g < 16; g++) {
            int sum = 0;
            for (int j = 0; j < 16; j++) {
                sum += seg.get(Layouts.BYTE, block + 4 + 16 * g + j);
            }
            assertThat((int) seg.get(Layouts.SHORT, block + 260 + 2L * g)).isEqualTo(sum);
        }
    }

    @Test
    void q8_0ActivationRoundingRoundsHalvesToEven() {
        float[] x = new float[32];
        x[0] = 127f; // amax 127: id = 1, so x*id is x
        x[1] = 2.5f;
        x[2] = 3.5f;
        x[3] = -2.5f;
        x[4] = 0.5f;
        float[] r = new float[32];
        VecDotType.Q8_0.round(x, 0, r, 0, 32);
        assertThat(r[1]).isEqualTo(2f);
        assertThat(r[2]).isEqualTo(4f);
        assertThat(r[3]).isEqualTo(-2f);
        assertThat(r[4]).isEqualTo(0f);
        // the reference weight quantizer rounds halves away from zero
        float[] y = dequantize(GgmlType.Q8_0, Quantize.toBytes(GgmlType.Q8_0, x), 32);
        assertThat(y[1]).isEqualTo(3f);
        assertThat(y[3]).isEqualTo(-3f);
    }

    @Test
    void unsupportedQuantizerIsRefused() {
        assertThatThrownBy(() -> Quantize.toBytes(GgmlType.Q2_K, new float[256]))
                .isInstanceOf(UnsupportedTensorTypeException.class)
                .hasMessageContaining("Q2_K");
        assertThatThrownBy(() -> Quantize.toBytes(GgmlType.Q8_0, new float[33]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

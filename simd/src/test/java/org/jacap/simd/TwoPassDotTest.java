package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The two-pass (unpack to bytes, then dot) matrix-vector kernels of Q6_K and Q5_K: the vector
 * unpack equals its scalar twin exactly, the unpacked bytes and scales rebuild the dequantizer's
 * weights exactly, and both dots match a float64 sum.
 */
class TwoPassDotTest {

    /** Weight {@code i} from the unpacked bytes and scales, as the kernel's dot uses them. */
    interface Rebuild {
        float weight(DotScratch s, int i);
    }

    @Test
    void q6kUnpacksToSignedSixBitValuesAndOneScalePer16() {
        check(new Q6KKernel(), -32, 31, (s, i) -> s.scales[i / 16] * s.bytes[i], 0);
    }

    @Test
    void q5kUnpacksToFiveBitValuesAndScaleAndMinimumPer32() {
        check(new Q5KKernel(), 0, 31, (s, i) -> s.scales[2 * (i / 32)] * s.bytes[i] - s.scales[2 * (i / 32) + 1], 1);
    }

    private static void check(TypeKernel k, int qMin, int qMax, Rebuild rebuild, int minimumSlot) {
        for (int blocks = 1; blocks <= 4; blocks++) {
            int n = 256 * blocks;
            MemorySegment seg =
                    Blocks.random(k.type(), n, 40 + blocks + 10 * k.type().ordinal());
            DotScratch vector = new DotScratch();
            DotScratch scalar = new DotScratch();
            float[] x = Blocks.gaussian(n, blocks, 1f);
            float fast = k.dot(seg, 0, x, 0, n, vector); // one chunk: the scratch keeps its unpacked bytes
            float slow = k.dotScalar(seg, 0, x, 0, n, scalar);
            assertThat(Arrays.copyOf(vector.bytes, n)).containsExactly(Arrays.copyOf(scalar.bytes, n));
            assertThat(Arrays.copyOf(vector.scales, n / 16)).containsExactly(Arrays.copyOf(scalar.scales, n / 16));
            float[] w = new float[n];
            k.dequantizeScalar(seg, 0, w, 0, n);
            double want = 0;
            double abs = 0;
            for (int i = 0; i < n; i++) {
                assertThat((int) vector.bytes[i]).as("%s value %d", k.type(), i).isBetween(qMin, qMax);
                assertThat(rebuild.weight(vector, i))
                        .as("%s weight %d", k.type(), i)
                        .isEqualTo(w[i]);
                want += (double) w[i] * x[i];
                abs += Math.abs((double) w[i] * x[i])
                        + minimumSlot * Math.abs((double) vector.scales[2 * (i / 32) + 1] * x[i]);
            }
            assertThat((double) fast).as("%s vector dot", k.type()).isCloseTo(want, within(1e-5 * abs + 1e-30));
            assertThat((double) slow).as("%s scalar dot", k.type()).isCloseTo(want, within(1e-5 * abs + 1e-30));
        }
    }
}

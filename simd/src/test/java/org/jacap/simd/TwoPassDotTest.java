package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.lang.foreign.MemorySegment;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.Test;

/** The two-pass (unpack to bytes, then dot) matrix-vector kernels of Q6_K and Q5_K against their scalar twins and the dequantizer. */
class TwoPassDotTest {

    @Test
    void q6kUnpackPassEqualsItsScalarTwinAndTheDequantizer() {
        Q6KKernel k = new Q6KKernel();
        for (int blocks = 1; blocks <= 4; blocks++) {
            int n = 256 * blocks;
            MemorySegment seg = Blocks.random(GgmlType.Q6_K, n, 40 + blocks);
            DotScratch vector = new DotScratch();
            DotScratch scalar = new DotScratch();
            float[] x = Blocks.gaussian(n, blocks, 1f);
            float fast = k.dot(seg, 0, x, 0, n, vector); // one chunk: the scratch keeps its unpacked bytes
            float slow = k.dotScalar(seg, 0, x, 0, n, scalar);
            assertThat(java.util.Arrays.copyOf(vector.bytes, n)).containsExactly(java.util.Arrays.copyOf(scalar.bytes, n));
            assertThat(java.util.Arrays.copyOf(vector.scales, n / 16)).containsExactly(java.util.Arrays.copyOf(scalar.scales, n / 16));
            float[] w = new float[n];
            k.dequantizeScalar(seg, 0, w, 0, n);
            double want = 0;
            double abs = 0;
            for (int i = 0; i < n; i++) {
                assertThat(vector.bytes[i]).isBetween((byte) -32, (byte) 31);
                assertThat(vector.scales[i / 16] * vector.bytes[i]).as("weight %d", i).isEqualTo(w[i]);
                want += (double) w[i] * x[i];
                abs += Math.abs((double) w[i] * x[i]);
            }
            assertThat((double) fast).isCloseTo(want, within(1e-5 * abs + 1e-30));
            assertThat((double) slow).isCloseTo(want, within(1e-5 * abs + 1e-30));
        }
    }

    @Test
    void q5kUnpackPassEqualsItsScalarTwinAndTheDequantizer() {
        Q5KKernel k = new Q5KKernel();
        for (int blocks = 1; blocks <= 4; blocks++) {
            int n = 256 * blocks;
            MemorySegment seg = Blocks.random(GgmlType.Q5_K, n, 70 + blocks);
            DotScratch vector = new DotScratch();
            DotScratch scalar = new DotScratch();
            float[] x = Blocks.gaussian(n, blocks, 1f);
            float fast = k.dot(seg, 0, x, 0, n, vector);
            float slow = k.dotScalar(seg, 0, x, 0, n, scalar);
            assertThat(java.util.Arrays.copyOf(vector.bytes, n)).containsExactly(java.util.Arrays.copyOf(scalar.bytes, n));
            assertThat(java.util.Arrays.copyOf(vector.scales, n / 16)).containsExactly(java.util.Arrays.copyOf(scalar.scales, n / 16));
            float[] w = new float[n];
            k.dequantizeScalar(seg, 0, w, 0, n);
            double want = 0;
            double abs = 0;
            for (int i = 0; i < n; i++) {
                int j = i / 32;
                assertThat(vector.bytes[i]).isBetween((byte) 0, (byte) 31);
                assertThat(vector.scales[2 * j] * vector.bytes[i] - vector.scales[2 * j + 1]).as("weight %d", i).isEqualTo(w[i]);
                want += (double) w[i] * x[i];
                abs += Math.abs((double) w[i] * x[i]) + Math.abs((double) vector.scales[2 * j + 1] * x[i]);
            }
            assertThat((double) fast).isCloseTo(want, within(1e-5 * abs + 1e-30));
            assertThat((double) slow).isCloseTo(want, within(1e-5 * abs + 1e-30));
        }
    }
}

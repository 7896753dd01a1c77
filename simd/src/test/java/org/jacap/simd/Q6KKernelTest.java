package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.lang.foreign.MemorySegment;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.Test;

/** The two passes of the Q6_K matrix-vector kernel against their scalar twins and the dequantizer. */
class Q6KKernelTest {

    @Test
    void unpackEqualsItsScalarTwinAndTheDequantizer() {
        for (int blocks = 1; blocks <= 4; blocks++) {
            int n = 256 * blocks;
            MemorySegment seg = Blocks.random(GgmlType.Q6_K, n, 40 + blocks);
            byte[] q = new byte[n];
            byte[] qs = new byte[n];
            float[] sc = new float[n / 16];
            float[] scs = new float[n / 16];
            Q6KKernel.unpack(seg, 0, blocks, q, sc);
            Q6KKernel.unpackScalar(seg, 0, blocks, qs, scs);
            assertThat(q).containsExactly(qs);
            assertThat(sc).containsExactly(scs);
            float[] w = new float[n];
            new Q6KKernel().dequantizeScalar(seg, 0, w, 0, n);
            for (int i = 0; i < n; i++) {
                assertThat(q[i]).isBetween((byte) -32, (byte) 31);
                assertThat(sc[i / 16] * q[i]).as("weight %d", i).isEqualTo(w[i], within(Math.ulp(w[i]) * 2));
            }
        }
    }

    @Test
    void bytesDotMatchesFloat64() {
        int n = 1024;
        byte[] q = new byte[n];
        float[] sc = new float[n / 16];
        float[] x = Blocks.gaussian(n + 5, 3, 1f);
        java.util.Random rnd = new java.util.Random(9);
        for (int i = 0; i < n; i++) {
            q[i] = (byte) (rnd.nextInt(64) - 32);
        }
        for (int i = 0; i < sc.length; i++) {
            sc[i] = (float) rnd.nextGaussian() * 0.01f;
        }
        for (int count : new int[] {32, 256, 992, 1024}) {
            double want = 0;
            double abs = 0;
            for (int i = 0; i < count; i++) {
                double v = (double) sc[i / 16] * q[i] * x[5 + i];
                want += v;
                abs += Math.abs(v);
            }
            assertThat((double) Q6KKernel.dotBytes(q, sc, x, 5, count)).as("count %d", count).isCloseTo(want, within(1e-6 * abs));
        }
    }
}

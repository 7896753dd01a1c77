package org.jacap.simd;

import java.util.Random;
import java.util.stream.IntStream;

/** Seeded random data and the adversarial lengths every kernel test runs over. */
final class TestData {

    /** Lengths around the 8-lane vector and its multiples: tails shorter than a vector, odd sizes. */
    static final int[] SIZES = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000
    };

    /** Cells outside a kernel's range hold this; a kernel that writes there is caught. */
    static final float SENTINEL = -12345.678f;

    private TestData() {}

    static IntStream sizes() {
        return IntStream.of(SIZES);
    }

    static Random random(long salt) {
        return new Random(0x5eed_cafeL ^ salt);
    }

    /** n uniform values in [-scale, scale) at offset off, surrounded by `pad` sentinels on each side. */
    static float[] padded(Random rnd, int off, int n, int pad, float scale) {
        float[] a = new float[off + n + pad];
        java.util.Arrays.fill(a, SENTINEL);
        for (int i = 0; i < n; i++) {
            a[off + i] = (rnd.nextFloat() * 2f - 1f) * scale;
        }
        return a;
    }

    static float[] uniform(Random rnd, int n, float scale) {
        return padded(rnd, 0, n, 0, scale);
    }

    static double[] uniformDouble(Random rnd, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextDouble() * 2 - 1;
        }
        return a;
    }

    /** Asserts that nothing outside [off, off+n) changed from the sentinel. */
    static void assertSentinels(float[] a, int off, int n) {
        for (int i = 0; i < a.length; i++) {
            if ((i < off || i >= off + n) && a[i] != SENTINEL) {
                throw new AssertionError(
                        "cell " + i + " outside [" + off + ", " + (off + n) + ") was written: " + a[i]);
            }
        }
    }

    /** |actual - expected| ≤ tol for every element in the range. */
    static void assertClose(
            float[] expected, float[] actual, int off, int n, double relTol, double absTol, String what) {
        for (int i = off; i < off + n; i++) {
            double e = expected[i];
            double a = actual[i];
            if (Double.isNaN(e) && Double.isNaN(a)) {
                continue;
            }
            if (e == a) {
                continue;
            }
            double tol = absTol + relTol * Math.abs(e);
            if (!(Math.abs(e - a) <= tol)) {
                throw new AssertionError(what + ": element " + (i - off) + " of " + n + ": expected " + e + " got " + a
                        + " (|diff| " + Math.abs(e - a) + " > " + tol + ")");
            }
        }
    }
}

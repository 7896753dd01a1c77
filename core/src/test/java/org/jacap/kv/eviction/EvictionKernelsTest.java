package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.jacap.kv.eviction.math.DoubleLanes;
import org.junit.jupiter.api.Test;

/** The vectorised loops against their scalar twins, on every tail length and offset. */
class EvictionKernelsTest {

    private static double[] random(SplittableRandom r, int n) {
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = r.nextGaussian();
        }
        return x;
    }

    @Test
    void elementWiseKernelsAreBitIdenticalToScalar() {
        SplittableRandom r = new SplittableRandom(3);
        for (int len = 0; len <= 37; len++) {
            for (int off = 0; off < 3; off++) {
                double[] x = random(r, len + 3);
                double[] y = random(r, len + 3);
                double[] acc1 = random(r, len + 3);
                double[] acc2 = acc1.clone();
                DoubleLanes.axpy(0.37, x, off, acc1, 3 - off, len);
                DoubleLanes.axpyScalar(0.37, x, off, acc2, 3 - off, len);
                assertArrayEquals(acc2, acc1, 0.0, "axpy " + len);
                DoubleLanes.multiplyAdd(x, off, y, 1, acc1, 0, len);
                DoubleLanes.multiplyAddScalar(x, off, y, 1, acc2, 0, len);
                assertArrayEquals(acc2, acc1, 0.0, "multiplyAdd " + len);
                DoubleLanes.axpy4(0.1, -0.2, 0.3, 1.5, x, off, 0, 1, 2, acc1, 0, len);
                DoubleLanes.axpy4Scalar(0.1, -0.2, 0.3, 1.5, x, off, 0, 1, 2, acc2, 0, len);
                assertArrayEquals(acc2, acc1, 0.0, "axpy4 " + len);
                double[] four = new double[4];
                DoubleLanes.dot4(x, off, y, 0, 1, 2, 3 - off, len, four);
                double[] want = {
                    DoubleLanes.dotScalar(x, off, y, 0, len),
                    DoubleLanes.dotScalar(x, off, y, 1, len),
                    DoubleLanes.dotScalar(x, off, y, 2, len),
                    DoubleLanes.dotScalar(x, off, y, 3 - off, len)
                };
                assertArrayEquals(want, four, 1e-12 * (len + 1), "dot4 " + len);
                DoubleLanes.divide(acc1, off, 1.7, len);
                DoubleLanes.divideScalar(acc2, off, 1.7, len);
                assertArrayEquals(acc2, acc1, 0.0, "divide " + len);
                assertEquals(
                        DoubleLanes.dotScalar(x, off, y, 0, len),
                        DoubleLanes.dot(x, off, y, 0, len),
                        1e-12 * (len + 1));
            }
        }
    }
}

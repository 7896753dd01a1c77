package org.jacap.simd;

import static org.jacap.simd.VectorOps.F_PREFERRED;

import java.util.Objects;
import jdk.incubator.vector.FloatVector;

/**
 * Numerically safe softmax and log-sum-exp: the maximum is subtracted first, so no exponent
 * overflows; {@code -Infinity} entries (masked positions) get weight exactly 0; the normalising sum
 * is accumulated in double across blocks of 16 vectors (as ggml, to ~1e-7). Scalar twins carry the suffix {@code Scalar}.
 */
public final class Softmax {

    /** Vectors summed in float before the partial sum is added in double (keeps float error ~1e-7). */
    private static final int BLOCK = 16;

    private Softmax() {}

    /**
     * x ← softmax(x) over [off, off+n). n = 0 does nothing; n = 1 gives 1 (unless the entry is
     * −∞ or NaN). If every entry is −∞ (a fully masked row) the result is all zeros rather than
     * NaN, so that attention over it contributes nothing. NaN entries make the row NaN.
     */
    public static void inPlace(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        if (n == 0) {
            return;
        }
        float max = VectorOps.max(x, off, n);
        if (max == Float.NEGATIVE_INFINITY) {
            java.util.Arrays.fill(x, off, off + n, 0f);
            return;
        }
        int l = F_PREFERRED.length();
        int i = 0;
        double sum = 0;
        int bound = F_PREFERRED.loopBound(n);
        FloatVector vmax = FloatVector.broadcast(F_PREFERRED, max);
        while (i < bound) {
            // float lanes add at most BLOCK terms each before the block total moves to double
            int end = Math.min(bound, i + BLOCK * l);
            FloatVector acc = FloatVector.zero(F_PREFERRED);
            for (; i < end; i += l) {
                FloatVector e = VectorMath.exp(
                        FloatVector.fromArray(F_PREFERRED, x, off + i).sub(vmax));
                e.intoArray(x, off + i);
                acc = e.add(acc); // the loop-carried vector as the argument: see Q6KKernel.blockWide
            }
            sum += LaneSums.sum(acc);
        }
        for (; i < n; i++) {
            float e = (float) Math.exp(x[off + i] - max);
            x[off + i] = e;
            sum += e;
        }
        VectorOps.scale(x, off, n, (float) (1.0 / sum));
    }

    /**
     * log Σ exp(x_i) over [off, off+n), computed as max + log Σ exp(x_i − max); −∞ when n = 0 or
     * every entry is −∞.
     */
    public static double logSumExp(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        float max = VectorOps.max(x, off, n);
        if (max == Float.NEGATIVE_INFINITY || Float.isNaN(max)) {
            return max;
        }
        int l = F_PREFERRED.length();
        int i = 0;
        double sum = 0;
        int bound = F_PREFERRED.loopBound(n);
        FloatVector vmax = FloatVector.broadcast(F_PREFERRED, max);
        while (i < bound) {
            int end = Math.min(bound, i + BLOCK * l);
            FloatVector acc = FloatVector.zero(F_PREFERRED);
            for (; i < end; i += l) {
                acc = VectorMath.exp(
                                FloatVector.fromArray(F_PREFERRED, x, off + i).sub(vmax))
                        .add(acc);
            }
            sum += LaneSums.sum(acc);
        }
        for (; i < n; i++) {
            sum += Math.exp(x[off + i] - max);
        }
        return max + Math.log(sum);
    }

    // ---------------------------------------------------------------- scalar twins

    public static void inPlaceScalar(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        if (n == 0) {
            return;
        }
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, x[off + i]);
        }
        if (max == Float.NEGATIVE_INFINITY) {
            java.util.Arrays.fill(x, off, off + n, 0f);
            return;
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double e = Math.exp((double) x[off + i] - max);
            x[off + i] = (float) e;
            sum += e;
        }
        for (int i = 0; i < n; i++) {
            x[off + i] = (float) (x[off + i] / sum);
        }
    }

    public static double logSumExpScalar(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, x[off + i]);
        }
        if (max == Float.NEGATIVE_INFINITY || Float.isNaN(max)) {
            return max;
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Math.exp((double) x[off + i] - max);
        }
        return max + Math.log(sum);
    }
}

package org.jacap.simd;

import static org.jacap.simd.VectorOps.F_PREFERRED;

import java.util.Objects;
import jdk.incubator.vector.FloatVector;

/**
 * RMS normalisation: out = x / sqrt(mean(x²) + eps) · weight, in the same operation order as
 * ggml's {@code rms_norm} followed by {@code mul}: the sum of float squares is accumulated in
 * double, the scale is {@code 1f / sqrtf(mean + eps)} in float, then out = (x·scale)·weight with
 * two float roundings. {@code out} may be {@code x} at the same offset (in place). The scalar twin
 * is {@link #applyScalar}.
 */
public final class RmsNorm {

    private RmsNorm() {}

    /**
     * Normalises one row of n values.
     *
     * @param weight per-channel gain, or {@code null} for none
     */
    public static void apply(float[] x, int xOff, float[] weight, int wOff, int n, float eps, float[] out, int outOff) {
        Objects.checkFromIndexSize(xOff, n, x.length);
        Objects.checkFromIndexSize(outOff, n, out.length);
        if (weight != null) {
            Objects.checkFromIndexSize(wOff, n, weight.length);
        }
        if (n == 0) {
            return;
        }
        float scale = scale(VectorOps.sumOfSquares(x, xOff, n), n, eps);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        if (weight == null) {
            for (; i < bound; i += F_PREFERRED.length()) {
                FloatVector.fromArray(F_PREFERRED, x, xOff + i).mul(scale).intoArray(out, outOff + i);
            }
            for (; i < n; i++) {
                out[outOff + i] = x[xOff + i] * scale;
            }
        } else {
            for (; i < bound; i += F_PREFERRED.length()) {
                FloatVector.fromArray(F_PREFERRED, x, xOff + i)
                        .mul(scale)
                        .mul(FloatVector.fromArray(F_PREFERRED, weight, wOff + i))
                        .intoArray(out, outOff + i);
            }
            for (; i < n; i++) {
                out[outOff + i] = x[xOff + i] * scale * weight[wOff + i];
            }
        }
    }

    /** Normalises {@code rows} consecutive rows of width n (row b at xOff + b·n, written at outOff + b·n). */
    public static void applyRows(
            float[] x, int xOff, float[] weight, int wOff, int n, int rows, float eps, float[] out, int outOff) {
        checkRows(x, xOff, n, rows, out, outOff);
        for (int b = 0; b < rows; b++) {
            apply(x, xOff + b * n, weight, wOff, n, eps, out, outOff + b * n);
        }
    }

    /** The float scale ggml computes: 1 / sqrtf((float) (sum / n) + eps). */
    static float scale(double sumOfSquares, int n, float eps) {
        float mean = (float) (sumOfSquares / n);
        return 1f / (float) Math.sqrt(mean + eps);
    }

    private static void checkRows(float[] x, int xOff, int n, int rows, float[] out, int outOff) {
        if (rows < 0) {
            throw new IllegalArgumentException("negative row count " + rows);
        }
        Objects.checkFromIndexSize(xOff, Math.multiplyExact(n, rows), x.length);
        Objects.checkFromIndexSize(outOff, Math.multiplyExact(n, rows), out.length);
    }

    // ---------------------------------------------------------------- scalar twin

    public static void applyScalar(
            float[] x, int xOff, float[] weight, int wOff, int n, float eps, float[] out, int outOff) {
        Objects.checkFromIndexSize(xOff, n, x.length);
        Objects.checkFromIndexSize(outOff, n, out.length);
        if (weight != null) {
            Objects.checkFromIndexSize(wOff, n, weight.length);
        }
        if (n == 0) {
            return;
        }
        double ss = 0;
        for (int i = 0; i < n; i++) {
            float v = x[xOff + i];
            ss += v * v;
        }
        float scale = scale(ss, n, eps);
        for (int i = 0; i < n; i++) {
            float y = x[xOff + i] * scale;
            out[outOff + i] = weight == null ? y : y * weight[wOff + i];
        }
    }

    public static void applyRowsScalar(
            float[] x, int xOff, float[] weight, int wOff, int n, int rows, float eps, float[] out, int outOff) {
        checkRows(x, xOff, n, rows, out, outOff);
        for (int b = 0; b < rows; b++) {
            applyScalar(x, xOff + b * n, weight, wOff, n, eps, out, outOff + b * n);
        }
    }
}

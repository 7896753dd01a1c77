package org.jacap.kv.eviction;

import java.util.Arrays;
import org.jacap.JacapException;
import org.jacap.simd.RopeLayout;

/**
 * R̄ = mean of the RoPE rotations R(p) over the future positions p = first .. first+count-1.
 * It maps a pre-RoPE query statistic into the frame of post-RoPE cached keys. Block-diagonal over
 * the RoPE pairs (a, b): {@code (R̄x)_a = c̄·x_a − s̄·x_b}, {@code (R̄x)_b = s̄·x_a + c̄·x_b}.
 * Not a rotation: {@code ‖R̄x‖ ≤ ‖x‖}. With partial RoPE (rotated dimensions {@code 2·pairs < headDim})
 * the pairs are laid out over the rotated dimensions only and the others pass through unchanged.
 */
public final class AveragedRotation {
    /** Future positions averaged by CapKV/ExpectedAttention (kvpress {@code n_future_positions}). */
    public static final int DEFAULT_FUTURE_POSITIONS = 512;

    private final int headDim;
    private final int[] first;
    private final int[] second;
    private final double[] cbar;
    private final double[] sbar;

    private AveragedRotation(RopeLayout layout, int headDim, double[] cbar, double[] sbar) {
        int ropeDim = 2 * cbar.length;
        if (headDim < ropeDim) {
            throw new JacapException("head dim " + headDim + " is smaller than the " + ropeDim + " rotated dimensions");
        }
        this.headDim = headDim;
        this.cbar = cbar;
        this.sbar = sbar;
        this.first = new int[cbar.length];
        this.second = new int[cbar.length];
        for (int j = 0; j < cbar.length; j++) {
            first[j] = layout.first(j, ropeDim);
            second[j] = layout.second(j, ropeDim);
        }
    }

    /**
     * Averages over {@code count} positions from {@code firstPosition} (the next position to be
     * written). {@code invFreq[j]} must be the model's own frequencies, scaling included.
     */
    public static AveragedRotation overPositions(RopeLayout layout, double[] invFreq, long firstPosition, int count) {
        return overPositions(layout, invFreq, 2 * invFreq.length, firstPosition, count);
    }

    /**
     * Partial RoPE: {@code invFreq.length} pairs over the first {@code 2·invFreq.length} of
     * {@code headDim} dimensions; the remaining dimensions are not rotated (R̄ is the identity there).
     */
    public static AveragedRotation overPositions(
            RopeLayout layout, double[] invFreq, int headDim, long firstPosition, int count) {
        if (count <= 0 || invFreq.length == 0) {
            throw new JacapException("averaged rotation needs positions and frequencies");
        }
        double[] c = new double[invFreq.length];
        double[] s = new double[invFreq.length];
        for (int j = 0; j < invFreq.length; j++) {
            double theta = invFreq[j];
            double sinHalf = Math.sin(theta / 2);
            if (Math.abs(sinHalf) > 1e-9) {
                // Dirichlet kernel: Σ_{p=n}^{n+F−1} e^{ipθ} = e^{i(n+(F−1)/2)θ}·sin(Fθ/2)/sin(θ/2), O(1) per pair
                double centre = (firstPosition + (count - 1) / 2.0) * theta;
                double gain = Math.sin(count * theta / 2) / (count * sinHalf);
                c[j] = Math.cos(centre) * gain;
                s[j] = Math.sin(centre) * gain;
            } else {
                double sc = 0;
                double ss = 0;
                for (long p = firstPosition; p < firstPosition + count; p++) {
                    double phi = (double) p * theta;
                    sc += Math.cos(phi);
                    ss += Math.sin(phi);
                }
                c[j] = sc / count;
                s[j] = ss / count;
            }
        }
        return new AveragedRotation(layout, headDim, c, s);
    }

    /** From precomputed per-pair means (fixtures, or an engine that caches them). */
    public static AveragedRotation of(RopeLayout layout, double[] cbar, double[] sbar) {
        if (cbar.length != sbar.length || cbar.length == 0) {
            throw new JacapException("cbar and sbar must have the same non-zero length");
        }
        return new AveragedRotation(layout, 2 * cbar.length, cbar.clone(), sbar.clone());
    }

    public int headDim() {
        return headDim;
    }

    public double[] cbar() {
        return cbar.clone();
    }

    public double[] sbar() {
        return sbar.clone();
    }

    /** {@code out = R̄x}; {@code out} must not alias {@code x}. */
    public void apply(double[] x, double[] out) {
        if (headDim > 2 * cbar.length) {
            passThrough(x, out);
        }
        for (int j = 0; j < cbar.length; j++) {
            int a = first[j];
            int b = second[j];
            out[a] = cbar[j] * x[a] - sbar[j] * x[b];
            out[b] = sbar[j] * x[a] + cbar[j] * x[b];
        }
    }

    /** {@code out = diag(R̄ diag(var) R̄ᵀ)}: the rotated diagonal variance Jacap uses. */
    public void applyToDiagonal(double[] var, double[] out) {
        if (headDim > 2 * cbar.length) {
            passThrough(var, out);
        }
        for (int j = 0; j < cbar.length; j++) {
            int a = first[j];
            int b = second[j];
            double c2 = cbar[j] * cbar[j];
            double s2 = sbar[j] * sbar[j];
            out[a] = c2 * var[a] + s2 * var[b];
            out[b] = s2 * var[a] + c2 * var[b];
        }
    }

    /** Both layouts pair dimensions inside [0, ropeDim): the rest are not rotated and pass through. */
    private void passThrough(double[] x, double[] out) {
        int ropeDim = 2 * cbar.length;
        System.arraycopy(x, ropeDim, out, ropeDim, headDim - ropeDim);
    }

    /** {@code out = R̄ Σ R̄ᵀ} for a row-major d×d matrix (ExpectedAttention's covariance). */
    public void applyToCovariance(double[] cov, double[] out) {
        int d = headDim;
        double[] t = new double[d * d];
        double[] col = new double[d];
        double[] rot = new double[d];
        for (int c = 0; c < d; c++) { // T = R̄Σ, column by column
            for (int r = 0; r < d; r++) {
                col[r] = cov[r * d + c];
            }
            apply(col, rot);
            for (int r = 0; r < d; r++) {
                t[r * d + c] = rot[r];
            }
        }
        for (int r = 0; r < d; r++) { // (T R̄ᵀ)[r,:] = R̄ T[r,:]
            System.arraycopy(t, r * d, col, 0, d);
            apply(col, rot);
            System.arraycopy(rot, 0, out, r * d, d);
        }
    }

    @Override
    public String toString() {
        return "AveragedRotation[d=" + headDim + ", cbar=" + Arrays.toString(cbar) + "]";
    }
}

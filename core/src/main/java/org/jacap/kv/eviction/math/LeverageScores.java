package org.jacap.kv.eviction.math;

import java.util.Arrays;
import org.jacap.JacapException;

/**
 * Ridge leverage of weighted value rows, the shared core of CapKV and Jacap:
 * {@code A = λI + Σ_i (w_i + ε) v_i v_iᵀ} (λ = 1 in both papers), {@code ℓ_i = v_iᵀ A⁻¹ v_i}.
 * A is SPD (A ⪰ λI), so it is factored by Cholesky {@code A = LLᵀ} and {@code ℓ_i = ‖L⁻¹v_i‖²}.
 * Cost ≈ {@code m·d²} for A, {@code d³/3} for L and {@code m·d²} for the substitutions.
 * {@link LeverageSolver#QR} takes the design card's route instead ({@link QrLeverage}).
 */
public final class LeverageScores {
    /** Tokens per forward-substitution block: d×256 doubles stay in L2. */
    private static final int TOKEN_BLOCK = 256;

    private LeverageScores() {}

    /** {@link #ridgeLeverage(double[], int, int, int, int, double[], int, double, double, double[], int)} by {@code solver}. */
    public static void ridgeLeverage(
            LeverageSolver solver,
            double[] columns,
            int stride,
            int from,
            int count,
            int dim,
            double[] weights,
            int weightOffset,
            double epsilon,
            double ridge,
            double[] out,
            int outOffset) {
        switch (solver) {
            case CHOLESKY ->
                ridgeLeverage(columns, stride, from, count, dim, weights, weightOffset, epsilon, ridge, out, outOffset);
            case QR -> {
                if (!(ridge > 0)) {
                    throw new JacapException("leverage ridge must be > 0, got " + ridge);
                }
                QrLeverage.ridgeLeverage(
                        columns, stride, from, count, dim, weights, weightOffset, epsilon, ridge, out, outOffset);
            }
        }
    }

    /**
     * Leverage of tokens {@code from .. from+count-1} of column-major values (coordinate a of
     * token i at {@code columns[a*stride + i]}), with weights {@code weights[weightOffset + i]}.
     * Writes {@code ℓ} to {@code out[outOffset + i]}. {@code ridge} is λ (> 0).
     */
    public static void ridgeLeverage(
            double[] columns,
            int stride,
            int from,
            int count,
            int dim,
            double[] weights,
            int weightOffset,
            double epsilon,
            double ridge,
            double[] out,
            int outOffset) {
        if (!(ridge > 0)) {
            throw new JacapException("leverage ridge must be > 0, got " + ridge);
        }
        double[] lower = choleskyOfCapacity(columns, stride, from, count, dim, weights, weightOffset, epsilon, ridge);
        Arrays.fill(out, outOffset, outOffset + count, 0.0);
        double[] y = new double[dim * Math.min(TOKEN_BLOCK, Math.max(count, 1))];
        for (int start = 0; start < count; start += TOKEN_BLOCK) {
            int len = Math.min(TOKEN_BLOCK, count - start);
            for (int j = 0; j < dim; j++) {
                // y_j = (v_j − Σ_{k<j} L_jk y_k) / L_jj, across the tokens of the block at once
                System.arraycopy(columns, j * stride + from + start, y, j * len, len);
                int k = 0;
                for (; k + 4 <= j; k += 4) {
                    int row = j * dim + k;
                    DoubleLanes.axpy4(
                            -lower[row],
                            -lower[row + 1],
                            -lower[row + 2],
                            -lower[row + 3],
                            y,
                            k * len,
                            (k + 1) * len,
                            (k + 2) * len,
                            (k + 3) * len,
                            y,
                            j * len,
                            len);
                }
                for (; k < j; k++) {
                    DoubleLanes.axpy(-lower[j * dim + k], y, k * len, y, j * len, len);
                }
                DoubleLanes.divide(y, j * len, lower[j * dim + j], len);
                DoubleLanes.multiplyAdd(y, j * len, y, j * len, out, outOffset + start, len);
            }
        }
    }

    /** Row-major convenience with λ = 1: {@code rows[i]} is v_i. */
    public static double[] ridgeLeverage(double[][] rows, double[] weights, double epsilon) {
        return ridgeLeverage(rows, weights, epsilon, 1.0);
    }

    /** Row-major convenience: {@code rows[i]} is v_i. */
    public static double[] ridgeLeverage(double[][] rows, double[] weights, double epsilon, double ridge) {
        return ridgeLeverage(LeverageSolver.CHOLESKY, rows, weights, epsilon, ridge);
    }

    /** Row-major convenience with a chosen solver. */
    public static double[] ridgeLeverage(
            LeverageSolver solver, double[][] rows, double[] weights, double epsilon, double ridge) {
        int m = rows.length;
        int d = m == 0 ? 0 : rows[0].length;
        double[] cols = new double[m * d];
        for (int i = 0; i < m; i++) {
            for (int a = 0; a < d; a++) {
                cols[a * m + i] = rows[i][a];
            }
        }
        double[] out = new double[m];
        if (m > 0) {
            ridgeLeverage(solver, cols, m, 0, m, d, weights, 0, epsilon, ridge, out, 0);
        }
        return out;
    }

    /** L (row-major, lower) with {@code LLᵀ = λI + Σ (w_i + ε) v_i v_iᵀ}. */
    static double[] choleskyOfCapacity(
            double[] columns,
            int stride,
            int from,
            int count,
            int dim,
            double[] weights,
            int weightOffset,
            double epsilon,
            double ridge) {
        double[] a = new double[dim * dim];
        double[] scaled = new double[count];
        double[] four = new double[4];
        for (int r = 0; r < dim; r++) {
            int base = r * stride + from;
            for (int i = 0; i < count; i++) {
                scaled[i] = (weights[weightOffset + i] + epsilon) * columns[base + i];
            }
            int c = r;
            for (; c + 4 <= dim; c += 4) {
                int base0 = c * stride + from;
                DoubleLanes.dot4(
                        scaled, 0, columns, base0, base0 + stride, base0 + 2 * stride, base0 + 3 * stride, count, four);
                for (int t = 0; t < 4; t++) {
                    a[r * dim + c + t] = four[t];
                }
            }
            for (; c < dim; c++) {
                a[r * dim + c] = DoubleLanes.dot(scaled, 0, columns, c * stride + from, count);
            }
            a[r * dim + r] += ridge;
        }
        return choleskyInPlace(a, dim);
    }

    /** Factors the SPD matrix whose upper triangle is in {@code a}; returns L in the same array. */
    static double[] choleskyInPlace(double[] a, int dim) {
        for (int j = 0; j < dim; j++) {
            double pivot = a[j * dim + j] - DoubleLanes.dot(a, j * dim, a, j * dim, j);
            if (!(pivot > 0)) {
                throw new JacapException("capacity matrix is not positive definite (pivot " + pivot + " at " + j
                        + "); non-finite keys or values?");
            }
            double ljj = Math.sqrt(pivot);
            for (int i = j + 1; i < dim; i++) {
                double s = a[j * dim + i] - DoubleLanes.dot(a, i * dim, a, j * dim, j);
                a[i * dim + j] = s / ljj;
            }
            a[j * dim + j] = ljj;
        }
        for (int j = 0; j < dim; j++) {
            for (int i = j + 1; i < dim; i++) {
                a[j * dim + i] = 0.0;
            }
        }
        return a;
    }
}

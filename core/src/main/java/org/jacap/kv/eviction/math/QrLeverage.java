package org.jacap.kv.eviction.math;

import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.QRDecomposition;
import org.apache.commons.math3.linear.RealMatrix;
import org.jacap.JacapException;

/**
 * Ridge leverage through Commons Math's Householder QR of the stacked matrix
 * {@code B = [diag(√(w+ε)) V; √λ I]} ((m+d)×d): {@code BᵀB = λI + Σ (wᵢ+ε) vᵢvᵢᵀ = A}, so
 * {@code A = RᵀR} and {@code ℓᵢ = vᵢᵀA⁻¹vᵢ = ‖R⁻ᵀvᵢ‖²} (forward substitution with Rᵀ).
 */
final class QrLeverage {
    private QrLeverage() {}

    /** Same contract as {@link LeverageScores#ridgeLeverage(double[], int, int, int, int, double[], int, double, double, double[], int)}. */
    static void ridgeLeverage(
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
        double[][] b = new double[count + dim][dim];
        for (int i = 0; i < count; i++) {
            double w = weights[weightOffset + i] + epsilon;
            if (!(w >= 0)) {
                throw new JacapException("leverage weights must be >= 0, got " + w + " at " + i);
            }
            double root = Math.sqrt(w);
            for (int a = 0; a < dim; a++) {
                b[i][a] = root * columns[a * stride + from + i];
            }
        }
        double ridgeRoot = Math.sqrt(ridge);
        for (int a = 0; a < dim; a++) {
            b[count + a][a] = ridgeRoot;
        }
        RealMatrix r = new QRDecomposition(new Array2DRowRealMatrix(b, false)).getR();
        double[][] rr = r.getData(); // (m+d)×d, upper triangle in the first d rows
        double[] y = new double[dim];
        for (int i = 0; i < count; i++) {
            // Rᵀy = vᵢ: row j of Rᵀ is column j of R
            double sum = 0;
            for (int j = 0; j < dim; j++) {
                double s = columns[j * stride + from + i];
                for (int k = 0; k < j; k++) {
                    s -= rr[k][j] * y[k];
                }
                y[j] = s / rr[j][j];
                sum += y[j] * y[j];
            }
            out[outOffset + i] = sum;
        }
    }
}

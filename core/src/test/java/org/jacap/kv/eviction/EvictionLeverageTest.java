package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.CholeskyDecomposition;
import org.apache.commons.math3.linear.QRDecomposition;
import org.apache.commons.math3.linear.RealMatrix;
import org.jacap.kv.eviction.math.LeverageScores;
import org.jacap.kv.eviction.math.TopK;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fast leverage path (A = I + Σ(w+ε)vvᵀ, Cholesky, forward substitution) against a Commons
 * Math QR oracle, and the identities of docs/eviction-spec.md §1.3/§3.
 */
class EvictionLeverageTest {

    private record Problem(double[][] v, double[] w, double eps) {
        static Problem random(long seed, int m, int d, double eps) {
            SplittableRandom r = new SplittableRandom(seed);
            double[][] v = new double[m][d];
            double[] w = new double[m];
            for (int i = 0; i < m; i++) {
                double scale = Math.exp(r.nextGaussian());
                for (int a = 0; a < d; a++) {
                    v[i][a] = scale * r.nextGaussian();
                }
                w[i] = Math.exp(-5 * r.nextDouble());
            }
            if (m > 3) {
                v[m / 2] = new double[d]; // a zero value row
                v[m - 1] = v[1].clone(); // a duplicate, in the tail of any block
                w[m - 1] = w[1];
            }
            return new Problem(v, w, eps);
        }

        RealMatrix capacity() {
            int d = v[0].length;
            double[][] a = new double[d][d];
            for (int k = 0; k < d; k++) {
                a[k][k] = 1;
            }
            for (int i = 0; i < v.length; i++) {
                for (int x = 0; x < d; x++) {
                    for (int y = x; y < d; y++) {
                        a[x][y] += (w[i] + eps) * v[i][x] * v[i][y];
                    }
                }
            }
            for (int x = 0; x < d; x++) {
                for (int y = 0; y < x; y++) {
                    a[x][y] = a[y][x];
                }
            }
            return new Array2DRowRealMatrix(a, false);
        }
    }

    /** Oracle: QR of [diag(√(w+ε))V ; I] gives R with RᵀR = A; ℓ_i = ‖R⁻ᵀ v_i‖². */
    private static double[] qrLeverage(Problem p) {
        int m = p.v.length;
        int d = p.v[0].length;
        double[][] x = new double[m + d][d];
        for (int i = 0; i < m; i++) {
            for (int a = 0; a < d; a++) {
                x[i][a] = Math.sqrt(p.w[i] + p.eps) * p.v[i][a];
            }
        }
        for (int a = 0; a < d; a++) {
            x[m + a][a] = 1;
        }
        RealMatrix r = new QRDecomposition(new Array2DRowRealMatrix(x, false)).getR();
        double[] lev = new double[m];
        double[] y = new double[d];
        for (int i = 0; i < m; i++) {
            for (int a = 0; a < d; a++) { // Rᵀ y = v, Rᵀ lower triangular
                double s = p.v[i][a];
                for (int b = 0; b < a; b++) {
                    s -= r.getEntry(b, a) * y[b];
                }
                y[a] = s / r.getEntry(a, a);
            }
            double sum = 0;
            for (double t : y) {
                sum += t * t;
            }
            lev[i] = sum;
        }
        return lev;
    }

    @ParameterizedTest(name = "m={0} d={1}")
    @CsvSource({"1,1", "2,3", "5,8", "37,8", "300,16", "513,17", "600,64", "64,64", "10,64"})
    void fastPathMatchesQrOracle(int m, int d) {
        Problem p = Problem.random(31L * m + d, m, d, 1e-6);
        double[] fast = LeverageScores.ridgeLeverage(p.v, p.w, p.eps);
        double[] oracle = qrLeverage(p);
        double worst = 0;
        for (int i = 0; i < m; i++) {
            double scale = Math.max(Math.abs(oracle[i]), 1e-300);
            worst = Math.max(worst, Math.abs(fast[i] - oracle[i]) / scale);
            if (oracle[i] == 0) {
                assertEquals(0.0, fast[i], 0.0);
            }
        }
        assertTrue(worst < 1e-6, "max relative difference " + worst);
        if (m > 3) {
            assertEquals(fast[1], fast[m - 1], 0.0, "duplicate rows give bit-identical leverage");
        }
        if (m > 3) {
            assertEquals(0.0, fast[m / 2], 0.0, "zero row gives exactly 0");
        }
    }

    @ParameterizedTest(name = "m={0} d={1}")
    @CsvSource({"40,8", "300,16", "100,64"})
    void scoresLieInUnitIntervalAndSumToEffectiveDimension(int m, int d) {
        Problem p = Problem.random(7L * m + d, m, d, 1e-6);
        double[] lev = LeverageScores.ridgeLeverage(p.v, p.w, p.eps);
        double weighted = 0;
        for (int i = 0; i < m; i++) {
            double s = p.w[i] * lev[i];
            assertTrue(s >= 0 && s < 1, "s_" + i + " = " + s);
            weighted += (p.w[i] + p.eps) * lev[i];
        }
        RealMatrix inverse = new CholeskyDecomposition(p.capacity()).getSolver().getInverse();
        assertEquals(d - inverse.getTrace(), weighted, 1e-10 * d);
    }

    @ParameterizedTest(name = "m={0} d={1}")
    @CsvSource({"30,8", "80,16"})
    void removingATokenChangesLogDetByMinusLogOneMinusScore(int m, int d) {
        Problem p = Problem.random(11L * m + d, m, d, 1e-6);
        double[] lev = LeverageScores.ridgeLeverage(p.v, p.w, p.eps);
        RealMatrix a = p.capacity();
        double logDet = logDet(a);
        for (int i = 0; i < m; i += 3) {
            RealMatrix reduced = a.copy();
            for (int x = 0; x < d; x++) {
                for (int y = x; y < d; y++) {
                    reduced.addToEntry(x, y, -p.w[i] * p.v[i][x] * p.v[i][y]);
                }
                for (int y = 0; y < x; y++) {
                    reduced.setEntry(x, y, reduced.getEntry(y, x));
                }
            }
            double expected = -Math.log1p(-p.w[i] * lev[i]);
            assertEquals(expected, logDet - logDet(reduced), 1e-9 * Math.max(1, Math.abs(expected)), "token " + i);
        }
    }

    @ParameterizedTest(name = "d={0}")
    @CsvSource({"8", "64"})
    void tinyConstantWeightsRankByValueNorm(int d) {
        Problem p = Problem.random(5L + d, 50, d, 0.0);
        java.util.Arrays.fill(p.w, 1e-9);
        double[] lev = LeverageScores.ridgeLeverage(p.v, p.w, 0.0);
        double[] norm2 = new double[p.v.length];
        for (int i = 0; i < norm2.length; i++) {
            for (double x : p.v[i]) {
                norm2[i] += x * x;
            }
        }
        int[] byLeverage = TopK.rankOrder(lev, lev.length);
        int[] byNorm = TopK.rankOrder(norm2, norm2.length);
        // zero row and duplicate aside, the orders agree
        assertEquals(java.util.Arrays.toString(byNorm), java.util.Arrays.toString(byLeverage));
    }

    private static double logDet(RealMatrix spd) {
        RealMatrix l = new CholeskyDecomposition(spd).getL();
        double s = 0;
        for (int i = 0; i < l.getRowDimension(); i++) {
            s += Math.log(l.getEntry(i, i));
        }
        return 2 * s;
    }
}

package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.jacap.JacapException;
import org.jacap.kv.eviction.math.LeverageScores;
import org.jacap.kv.eviction.math.LeverageSolver;
import org.junit.jupiter.api.Test;

/** {@code solver=qr}: the design card's Commons Math QR of [diag(√w)V; √λI] against the Cholesky fast path. */
class QrLeverageTest {

    private static double[][] rows(SplittableRandom r, int m, int d) {
        double[][] v = new double[m][d];
        for (int i = 0; i < m; i++) {
            for (int a = 0; a < d; a++) {
                v[i][a] = r.nextGaussian() * (1 + (i % 5));
            }
        }
        return v;
    }

    @Test
    void qrAgreesWithCholeskyToRoundingOverWeightsOfEveryScale() {
        SplittableRandom r = new SplittableRandom(11);
        for (double ridge : new double[] {1.0, 0.05, 20.0}) {
            double[][] v = rows(r, 300, 16);
            double[] w = new double[v.length];
            for (int i = 0; i < w.length; i++) {
                w[i] = Math.pow(10, -8 + 9 * r.nextDouble()); // 1e-8 .. 10: the softmax weights' range
            }
            double[] fast = LeverageScores.ridgeLeverage(LeverageSolver.CHOLESKY, v, w, 1e-6, ridge);
            double[] qr = LeverageScores.ridgeLeverage(LeverageSolver.QR, v, w, 1e-6, ridge);
            for (int i = 0; i < v.length; i++) {
                // both are backward stable; the worst relative difference observed here is 1.9e-15,
                // 1e-9 leaves room for the conditioning of other data (up to ~1e5 here)
                assertThat(qr[i]).as("ridge %s token %d", ridge, i).isCloseTo(fast[i], within(1e-9 * fast[i]));
            }
        }
    }

    @Test
    void qrMatchesTheClosedFormOfOneDimension() {
        // d = 1: A = λ + Σ(wᵢ+ε)vᵢ², ℓᵢ = vᵢ²/A
        double[][] v = {{2}, {-1}, {0.5}};
        double[] w = {1, 3, 0};
        double a = 1 + (1 + 1e-6) * 4 + (3 + 1e-6) * 1 + (0 + 1e-6) * 0.25;
        double[] qr = LeverageScores.ridgeLeverage(LeverageSolver.QR, v, w, 1e-6, 1.0);
        assertThat(qr).containsExactly(new double[] {4 / a, 1 / a, 0.25 / a}, within(1e-15));
    }

    @Test
    void theScorersTakeSolverQrAndKeepTheSameEntries() {
        SyntheticLayer layer = new SyntheticLayer(7, 4, 2, 96, 16);
        for (String name : new String[] {"capkv", "jacap-paper"}) {
            KvScorer fast = EvictionPolicies.scorer(name);
            KvScorer qr = EvictionPolicies.scorer(name + ":solver=qr");
            assertThat(qr.spec())
                    .isEqualTo(fast.spec().contains(":") ? fast.spec() + ",solver=qr" : fast.spec() + ":solver=qr");
            double[][] a = fast.score(layer.snapshot(SyntheticLayer.everything(4, 8)));
            double[][] b = qr.score(layer.snapshot(SyntheticLayer.everything(4, 8)));
            for (int g = 0; g < a.length; g++) {
                for (int i = 0; i < a[g].length; i++) {
                    if (Double.isInfinite(a[g][i])) {
                        assertThat(b[g][i]).isEqualTo(a[g][i]); // protected sinks
                    } else {
                        assertThat(b[g][i])
                                .as("%s head %d entry %d", name, g, i)
                                .isCloseTo(a[g][i], within(1e-9 * Math.abs(a[g][i]) + 1e-300));
                    }
                }
            }
            EvictionPolicy pf = new EvictionPolicy(fast, new UniformAllocator());
            EvictionPolicy pq = new EvictionPolicy(qr, new UniformAllocator());
            KeptEntries kf = pf.select(layer.snapshot(SyntheticLayer.everything(4, 8)), Budget.kept(40));
            KeptEntries kq = pq.select(layer.snapshot(SyntheticLayer.everything(4, 8)), Budget.kept(40));
            for (int g = 0; g < 2; g++) {
                assertThat(kq.kept(g)).as("%s head %d", name, g).containsExactly(kf.kept(g));
            }
        }
    }

    @Test
    void anUnknownSolverNamesTheChoices() {
        assertThatThrownBy(() -> EvictionPolicies.scorer("capkv:solver=svd"))
                .isInstanceOf(JacapException.class)
                .hasMessage("parameter 'solver' of 'capkv:solver=svd' must be one of cholesky, qr, got 'svd'");
    }
}

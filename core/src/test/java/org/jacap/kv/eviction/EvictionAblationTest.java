package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.QRDecomposition;
import org.apache.commons.math3.linear.RealMatrix;
import org.jacap.JacapException;
import org.jacap.kv.eviction.math.LeverageScores;
import org.jacap.kv.eviction.math.TopK;
import org.junit.jupiter.api.Test;

/** The ablation switches of docs/eviction-spec.md §2.3: ridge λ, group max, sinks in the pool, full Λ. */
class EvictionAblationTest {

    private static Map<String, double[][]> trace(KvScorer scorer, LayerSnapshot s, int rows, double[][] scoresOut) {
        Map<String, double[][]> out = new HashMap<>();
        double[][] scores = scorer.score(
                s, (name, row, values) -> out.computeIfAbsent(name, k -> new double[rows][])[row] = values);
        System.arraycopy(scores, 0, scoresOut, 0, scores.length);
        return out;
    }

    @Test
    void ridgeMatchesQrOracleWithScaledIdentity() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(4);
        int m = 70;
        int d = 12;
        double[][] v = new double[m][d];
        double[] w = new double[m];
        for (int i = 0; i < m; i++) {
            for (int a = 0; a < d; a++) {
                v[i][a] = r.nextGaussian();
            }
            w[i] = r.nextDouble();
        }
        for (double ridge : new double[] {0.1, 1.0, 10.0}) {
            double[] fast = LeverageScores.ridgeLeverage(v, w, 1e-6, ridge);
            double[][] x = new double[m + d][d];
            for (int i = 0; i < m; i++) {
                for (int a = 0; a < d; a++) {
                    x[i][a] = Math.sqrt(w[i] + 1e-6) * v[i][a];
                }
            }
            for (int a = 0; a < d; a++) {
                x[m + a][a] = Math.sqrt(ridge);
            }
            RealMatrix rr = new QRDecomposition(new Array2DRowRealMatrix(x, false)).getR();
            for (int i = 0; i < m; i++) {
                double[] y = new double[d];
                double lev = 0;
                for (int a = 0; a < d; a++) {
                    double s = v[i][a];
                    for (int b = 0; b < a; b++) {
                        s -= rr.getEntry(b, a) * y[b];
                    }
                    y[a] = s / rr.getEntry(a, a);
                    lev += y[a] * y[a];
                }
                assertEquals(lev, fast[i], 1e-12 * lev, "ridge " + ridge + " token " + i);
            }
        }
        assertThrows(JacapException.class, () -> LeverageScores.ridgeLeverage(v, w, 1e-6, 0.0));
    }

    @Test
    void observedAlphaIsTheReceivedAttentionNormalisedOverTheScoredEntries() {
        LayerSnapshot s = new SyntheticLayer(23, 4, 2, 40, 8).snapshot(SyntheticLayer.everything(4, 8));
        QueryStatistics q = s.queries();
        double[][] observedScores = new double[2][];
        Map<String, double[][]> t = trace(EvictionPolicies.scorer("jacap-observed"), s, 4, observedScores);
        int from = 4; // the sinks are not scored
        for (int h = 0; h < 4; h++) {
            double[] logAlpha = t.get("log_alpha")[h];
            double[] kappa = t.get("kappa")[h];
            double[] w = t.get("w")[h];
            assertEquals(40 - from, logAlpha.length);
            double total = 0;
            for (int i = from; i < 40; i++) {
                total += q.attentionReceived(h, i) / q.attentionSeenBy(h, i);
            }
            double maxLogW = Double.NEGATIVE_INFINITY;
            double[] logW = new double[logAlpha.length];
            for (int i = 0; i < logAlpha.length; i++) {
                double alpha = q.attentionReceived(h, from + i) / q.attentionSeenBy(h, from + i) / total;
                assertEquals(Math.log(alpha), logAlpha[i], 1e-12, "head " + h + " entry " + i);
                logW[i] = 2 * Math.log(alpha) + 2 * Math.log1p(-alpha) + Math.log(kappa[i]) - Math.log(8);
                maxLogW = Math.max(maxLogW, logW[i]);
            }
            for (int i = 0; i < logAlpha.length; i++) {
                assertEquals(Math.exp(logW[i] - maxLogW), w[i], 1e-12, "head " + h + " weight " + i);
            }
        }
        // the same κ and leverage frame as the paper's form, with another ᾱ: other scores
        double[][] paperScores = new double[2][];
        Map<String, double[][]> p = trace(EvictionPolicies.scorer("jacap-paper"), s, 4, paperScores);
        assertTrue(Arrays.equals(p.get("kappa")[0], t.get("kappa")[0]));
        assertFalse(Arrays.equals(p.get("log_alpha")[0], t.get("log_alpha")[0]));
        assertFalse(Arrays.deepEquals(paperScores, observedScores));
        assertEquals(EvictionPolicies.scorer("jacap-observed"), EvictionPolicies.scorer("jacap-paper:alpha=observed"));
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer("jacap-paper:alpha=future"));
        assertEquals(
                "jacap-observed",
                ((FusedJacapScorer) EvictionPolicies.scorer("jacap:capacity=jacap-observed"))
                        .capacity()
                        .name());
    }

    @Test
    void groupMaxTakesTheLargestHeadScore() {
        LayerSnapshot s = new SyntheticLayer(21, 4, 2, 40, 8).snapshot(SyntheticLayer.everything(4, 8));
        for (KvScorer scorer : new KvScorer[] {
            EvictionPolicies.scorer("capkv:group=max"), EvictionPolicies.scorer("jacap-paper:group=max")
        }) {
            double[][] scores = new double[2][];
            Map<String, double[][]> t = trace(scorer, s, 4, scores);
            for (int g = 0; g < 2; g++) {
                for (int i = 0; i < 36; i++) {
                    double a = t.get("w")[2 * g][i] * t.get("lev")[2 * g][i];
                    double b = t.get("w")[2 * g + 1][i] * t.get("lev")[2 * g + 1][i];
                    assertEquals(Math.max(a, b), scores[g][4 + i], 0.0);
                }
            }
        }
    }

    @Test
    void sinksInThePoolStillProtected() {
        LayerSnapshot s = new SyntheticLayer(22, 4, 2, 40, 8).snapshot(SyntheticLayer.everything(4, 8));
        for (String spec : new String[] {"capkv:include_sinks=true", "jacap-paper:include_sinks=true"}) {
            KvScorer scorer = EvictionPolicies.scorer(spec);
            double[][] scores = new double[2][];
            Map<String, double[][]> t = trace(scorer, s, 4, scores);
            assertEquals(40, t.get("w")[0].length, "weights cover the sinks too");
            double max = 0;
            for (double[] row : scores) {
                for (int i = 4; i < 40; i++) {
                    max = Math.max(max, row[i]);
                }
            }
            for (double[] row : scores) {
                for (int i = 0; i < 4; i++) {
                    assertEquals(max + (4 - i), row[i], 0.0);
                }
            }
            assertFalse(Arrays.deepEquals(
                    scores,
                    EvictionPolicies.scorer(spec.substring(0, spec.indexOf(':')))
                            .score(s)));
        }
    }

    @Test
    void fullCovarianceKappaIsTheQuadraticForm() {
        SyntheticLayer layer = new SyntheticLayer(23, 2, 1, 30, 8);
        LayerSnapshot s = layer.snapshot(SyntheticLayer.everything(4, 8));
        JacapScorer scorer = (JacapScorer) EvictionPolicies.scorer("jacap-paper:covariance=full");
        assertTrue(scorer.statistics().needs(QueryStatistic.PRE_ROPE_COVARIANCE));
        double[][] scores = new double[1][];
        Map<String, double[][]> t = trace(scorer, s, 2, scores);
        int d = 8;
        int m = 26;
        for (int h = 0; h < 2; h++) {
            double[] mean = new double[d];
            for (int i = 4; i < 30; i++) {
                for (int a = 0; a < d; a++) {
                    mean[a] += layer.qPre[h][i][a] / m;
                }
            }
            double[] cov = new double[d * d];
            for (int i = 4; i < 30; i++) {
                for (int a = 0; a < d; a++) {
                    for (int b = 0; b < d; b++) {
                        cov[a * d + b] += (layer.qPre[h][i][a] - mean[a]) * (layer.qPre[h][i][b] - mean[b]) / m;
                    }
                }
            }
            double[] lambda = new double[d * d];
            s.futureRotation().applyToCovariance(cov, lambda);
            for (int i = 0; i < m; i++) {
                double[] k = layer.keys[0][4 + i];
                double kappa = 0;
                for (int a = 0; a < d; a++) {
                    for (int b = 0; b < d; b++) {
                        kappa += k[a] * lambda[a * d + b] * k[b];
                    }
                }
                assertEquals(kappa, t.get("kappa")[h][i], 1e-10 * Math.abs(kappa));
            }
        }
    }

    @Test
    void ablationSpecsRoundTrip() {
        for (String spec : new String[] {
            "capkv:ridge=0.1,group=max,include_sinks=true",
            "jacap-paper:covariance=full,ridge=10",
            "jacap-literal:group=max"
        }) {
            KvScorer scorer = EvictionPolicies.scorer(spec);
            assertEquals(scorer, EvictionPolicies.scorer(scorer.spec()), spec);
        }
        assertEquals(
                0.1,
                ((CapKvScorer) EvictionPolicies.scorer("capkv:ridge=0.1"))
                        .ablation()
                        .ridge());
        JacapException e = assertThrows(JacapException.class, () -> EvictionPolicies.scorer("capkv:group=median"));
        assertTrue(e.getMessage().contains("mean, max"), e.getMessage());
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer("capkv:ridge=0"));
    }

    @Test
    void uniformProtectionWrapsAnyScorer() {
        LayerSnapshot s = new SyntheticLayer(24, 4, 2, 40, 8).snapshot(SyntheticLayer.everything(4, 8));
        for (String base : new String[] {"knorm", "snapkv:window=8", "capkv", "h2o", "random:seed=3"}) {
            KvScorer scorer = EvictionPolicies.scorer(
                    base + (base.contains(":") ? "," : ":") + "protect_sinks=4,protect_recent=4");
            assertEquals(scorer, EvictionPolicies.scorer(scorer.spec()));
            double[][] scores = scorer.score(s);
            int[][] six = new UniformAllocator().select(scores, Budget.kept(6), 0, 1);
            int[][] ten = new UniformAllocator().select(scores, Budget.kept(10), 0, 1);
            for (int g = 0; g < 2; g++) {
                assertEquals(Arrays.toString(new int[] {0, 1, 2, 3, 38, 39}), Arrays.toString(six[g]), base);
                for (int p : new int[] {0, 1, 2, 3, 36, 37, 38, 39}) {
                    assertTrue(Arrays.binarySearch(ten[g], p) >= 0, base);
                }
            }
        }
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer("none:protect_sinks=4"));
    }

    /** The greedy order equals argmax log(1 + w·vᵀA_C⁻¹v) recomputed from scratch at every step. */
    @Test
    void greedyLogDetFollowsTheDefinition() {
        SyntheticLayer layer = new SyntheticLayer(25, 1, 1, 24, 6);
        LayerSnapshot s = layer.snapshot(SyntheticLayer.everything(4, 8));
        for (String base : new String[] {"capkv", "jacap-paper"}) {
            GreedyLogDetScorer greedy = (GreedyLogDetScorer) EvictionPolicies.scorer("greedy:weights=" + base);
            assertEquals(greedy, EvictionPolicies.scorer(greedy.spec()));
            double[][] w = new double[1][];
            greedy.weights().score(s, (name, row, values) -> {
                if (name.equals("w")) {
                    w[row] = values;
                }
            });
            double[] scores = greedy.score(s)[0];
            int m = 20;
            boolean[] picked = new boolean[m];
            double[][] a = new double[6][6];
            for (int x = 0; x < 6; x++) {
                a[x][x] = 1;
            }
            for (int r = 0; r < m; r++) {
                RealMatrix inv = new org.apache.commons.math3.linear.LUDecomposition(new Array2DRowRealMatrix(a))
                        .getSolver()
                        .getInverse();
                int best = -1;
                double bestGain = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < m; i++) {
                    if (picked[i]) {
                        continue;
                    }
                    double[] v = layer.values[0][4 + i];
                    double q = inv.preMultiply(new org.apache.commons.math3.linear.ArrayRealVector(v))
                            .dotProduct(new org.apache.commons.math3.linear.ArrayRealVector(v));
                    double gain = Math.log1p(w[0][i] * q);
                    if (gain > bestGain + 1e-12) {
                        bestGain = gain;
                        best = i;
                    }
                }
                picked[best] = true;
                assertEquals(1.0 + (m - r), scores[4 + best], 0.0, base + " pick " + r);
                double[] v = layer.values[0][4 + best];
                for (int x = 0; x < 6; x++) {
                    for (int y = 0; y < 6; y++) {
                        a[x][y] += w[0][best] * v[x] * v[y];
                    }
                }
            }
            double[] capped = ((GreedyLogDetScorer) EvictionPolicies.scorer("greedy:weights=" + base + ",max_picks=5"))
                    .score(s)[0];
            int[] top5 = TopK.top(Arrays.copyOfRange(capped, 4, 24), 5);
            int[] full5 = TopK.top(Arrays.copyOfRange(scores, 4, 24), 5);
            assertEquals(Arrays.toString(full5), Arrays.toString(top5));
            for (int i = 4; i < 24; i++) {
                assertTrue(capped[i] >= 2 || capped[i] < 1);
            }
        }
    }
}

package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.SplittableRandom;
import org.jacap.JacapException;
import org.jacap.simd.RopeLayout;
import org.junit.jupiter.api.Test;

/** The incremental statistics the forward pass feeds. */
class EvictionStatisticsTest {
    private static final AttentionShape SHAPE = new AttentionShape(4, 2, 6);

    @Test
    void momentsMatchTwoPassEvenWithALargeMean() {
        QueryStatistics stats = new QueryStatistics(SHAPE, SyntheticLayer.everything(4, 3));
        SplittableRandom r = new SplittableRandom(1);
        int n = 500;
        double[][] x = new double[n][6];
        for (int t = 0; t < n; t++) {
            for (int a = 0; a < 6; a++) {
                x[t][a] = 1e4 * (a + 1) + r.nextGaussian() * (a + 0.5);
            }
            stats.observePreRope(1, t, x[t], 0);
        }
        int m = n - 4;
        assertEquals(m, stats.momentCount(1));
        double[] mean = new double[6];
        for (int t = 4; t < n; t++) {
            for (int a = 0; a < 6; a++) {
                mean[a] += x[t][a];
            }
        }
        for (int a = 0; a < 6; a++) {
            mean[a] /= m;
        }
        double[] cov = new double[36];
        for (int t = 4; t < n; t++) {
            for (int a = 0; a < 6; a++) {
                for (int b = 0; b < 6; b++) {
                    cov[a * 6 + b] += (x[t][a] - mean[a]) * (x[t][b] - mean[b]) / m;
                }
            }
        }
        double[] gotMean = new double[6];
        double[] gotVar = new double[6];
        double[] gotCov = new double[36];
        stats.meanInto(1, gotMean);
        stats.varianceInto(1, gotVar);
        stats.covarianceInto(1, gotCov);
        for (int a = 0; a < 6; a++) {
            assertEquals(mean[a], gotMean[a], 1e-13 * Math.abs(mean[a]));
            assertEquals(cov[a * 7], gotVar[a], 1e-9 * cov[a * 7]);
            for (int b = 0; b < 6; b++) {
                assertEquals(cov[a * 6 + b], gotCov[a * 6 + b], 1e-9 * Math.sqrt(cov[a * 7] * cov[b * 7]));
            }
        }
    }

    @Test
    void floatAndDoubleObservationsAgree() {
        QueryStatistics f = new QueryStatistics(SHAPE, SyntheticLayer.everything(0, 2));
        QueryStatistics d = new QueryStatistics(SHAPE, SyntheticLayer.everything(0, 2));
        SplittableRandom r = new SplittableRandom(2);
        for (int t = 0; t < 20; t++) {
            float[] q = new float[8];
            double[] qd = new double[8];
            for (int a = 0; a < 8; a++) {
                qd[a] = q[a] = (float) r.nextGaussian();
            }
            f.observePreRope(0, t, q, 2);
            d.observePreRope(0, t, qd, 2);
            f.observePostRope(0, t, q, 1);
            d.observePostRope(0, t, qd, 1);
            f.observeAttention(0, q, 0, 8);
            d.observeAttention(0, qd, 0, 8);
        }
        double[] a = new double[6];
        double[] b = new double[6];
        f.varianceInto(0, a);
        d.varianceInto(0, b);
        assertArrayEquals(b, a, 0.0);
        f.recentQueryInto(0, 1, a);
        d.recentQueryInto(0, 1, b);
        assertArrayEquals(b, a, 0.0);
        assertEquals(d.attentionReceived(0, 5), f.attentionReceived(0, 5), 0.0);
    }

    @Test
    void recentRingKeepsTheLastWindowOldestFirst() {
        QueryStatistics stats = new QueryStatistics(SHAPE, StatisticsSpec.of(0, 3, QueryStatistic.RECENT_QUERIES));
        for (int t = 0; t < 7; t++) {
            double[] q = new double[6];
            q[0] = t;
            stats.observePostRope(2, 100 + t, q, 0);
        }
        assertEquals(3, stats.recentCount(2));
        assertEquals(0, stats.recentCount(0));
        double[] q = new double[6];
        for (int k = 0; k < 3; k++) {
            stats.recentQueryInto(2, k, q);
            assertEquals(4 + k, q[0], 0.0);
            assertEquals(104 + k, stats.recentPosition(2, k));
        }
    }

    @Test
    void attentionIsSummedAndCompactedWithTheCache() {
        QueryStatistics stats = new QueryStatistics(SHAPE, StatisticsSpec.of(0, 0, QueryStatistic.ATTENTION_RECEIVED));
        for (int t = 0; t < 100; t++) {
            double[] p = new double[t + 1];
            java.util.Arrays.fill(p, 1.0 / (t + 1));
            stats.observeAttention(2, p, 0, t + 1);
            stats.observeAttention(3, p, 0, t + 1);
        }
        assertEquals(100, stats.attentionSeenBy(2, 0));
        assertEquals(1, stats.attentionSeenBy(2, 99));
        double at50 = stats.attentionReceived(3, 50);
        stats.retainEntries(1, new int[] {0, 50, 99});
        assertEquals(at50, stats.attentionReceived(3, 1), 0.0);
        assertEquals(1, stats.attentionSeenBy(2, 2));
        assertEquals(0, stats.attentionSeenBy(2, 3));
        assertEquals(0.0, stats.attentionReceived(2, 60), 0.0);
    }

    @Test
    void onlyRequestedStatisticsAreGathered() {
        QueryStatistics stats = new QueryStatistics(SHAPE, StatisticsSpec.NOTHING);
        stats.observePreRope(0, 10, new double[6], 0);
        stats.observePostRope(0, 10, new double[6], 0);
        stats.observeAttention(0, new double[3], 0, 3);
        assertEquals(0, stats.momentCount(0));
        JacapException e = assertThrows(JacapException.class, () -> stats.meanInto(0, new double[6]));
        assertTrue(e.getMessage().contains("PRE_ROPE_MEAN"), e.getMessage());
        assertThrows(JacapException.class, () -> stats.recentCount(0));
        QueryStatistics capkv =
                new QueryStatistics(SHAPE, CapKvScorer.defaults().statistics());
        assertTrue(capkv.gathers(QueryStatistic.PRE_ROPE_MEAN));
        assertEquals(
                EnumSet.of(QueryStatistic.PRE_ROPE_MEAN),
                EnumSet.copyOf(capkv.spec().needs()));
        assertThrows(JacapException.class, () -> capkv.meanInto(0, new double[6]), "nothing observed yet");
    }

    @Test
    void rotationOfDiagonalAndCovarianceAgree() {
        double[] invFreq = {1.0, 0.1, 0.01};
        for (RopeLayout layout : RopeLayout.values()) {
            AveragedRotation r = AveragedRotation.overPositions(layout, invFreq, 37, 512);
            double[] var = {1, 2, 3, 4, 5, 6};
            double[] cov = new double[36];
            for (int a = 0; a < 6; a++) {
                cov[a * 7] = var[a];
            }
            double[] full = new double[36];
            double[] diag = new double[6];
            r.applyToCovariance(cov, full);
            r.applyToDiagonal(var, diag);
            for (int a = 0; a < 6; a++) {
                assertEquals(full[a * 7], diag[a], 1e-15);
            }
        }
    }

    @Test
    void oneSpecCanServeSeveralPolicies() {
        StatisticsSpec all = StatisticsSpec.NOTHING;
        for (String name : EvictionPolicies.SCORERS) {
            all = all.union(EvictionPolicies.scorer(name).statistics());
        }
        assertEquals(EnumSet.allOf(QueryStatistic.class), EnumSet.copyOf(all.needs()));
        assertEquals(4, all.momentsFromPosition());
        assertEquals(64, all.recentQueries());
        StatisticsSpec capkv = CapKvScorer.defaults().statistics();
        assertThrows(
                JacapException.class,
                () -> capkv.union(
                        EvictionPolicies.scorer("jacap-paper:n_sink=2").statistics()));
        // the same fed statistics give every policy the same scores as its own narrower statistics
        SyntheticLayer layer = new SyntheticLayer(30, 4, 2, 70, 8);
        LayerSnapshot shared = layer.snapshot(all);
        for (String name : EvictionPolicies.SCORERS) {
            KvScorer scorer = EvictionPolicies.scorer(name);
            assertTrue(
                    java.util.Arrays.deepEquals(
                            scorer.score(layer.snapshot(scorer.statistics())), scorer.score(shared)),
                    name);
        }
    }
}

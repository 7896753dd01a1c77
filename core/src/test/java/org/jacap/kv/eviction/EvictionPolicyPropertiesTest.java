package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jacap.kv.eviction.math.TopK;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties every policy must have, from docs/eviction-spec.md §3 and the fixture README. */
class EvictionPolicyPropertiesTest {

    static Stream<KvScorer> scorers() {
        return Stream.of(
                new RandomScorer(7),
                new StreamingScorer(4),
                new KeyNormScorer(),
                KeyDiffScorer.defaults(),
                new SnapKvScorer(8, 5),
                new TovaScorer(),
                new ObservedAttentionScorer(),
                ExpectedAttentionScorer.defaults(),
                CapKvScorer.defaults(),
                JacapScorer.defaults(),
                JacapScorer.literal());
    }

    private static LayerSnapshot snapshot(SyntheticLayer layer) {
        return layer.snapshot(SyntheticLayer.everything(4, 8));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scorers")
    void deterministicBitForBit(KvScorer scorer) {
        double[][] first = scorer.score(snapshot(new SyntheticLayer(3, 4, 2, 45, 8)));
        double[][] second = scorer.score(snapshot(new SyntheticLayer(3, 4, 2, 45, 8)));
        assertTrue(Arrays.deepEquals(first, second));
        assertEquals(2, first.length);
        for (double[] row : first) {
            assertEquals(45, row.length);
            for (double x : row) {
                assertTrue(Double.isFinite(x));
            }
        }
    }

    @Test
    void randomSeedsGiveDifferentScores() {
        LayerSnapshot s = snapshot(new SyntheticLayer(3, 4, 2, 45, 8));
        assertFalse(Arrays.deepEquals(new RandomScorer(1).score(s), new RandomScorer(2).score(s)));
        double[][] r = new RandomScorer(101).score(s);
        java.util.SplittableRandom reference = new java.util.SplittableRandom(101);
        for (double[] row : r) {
            for (double x : row) {
                assertEquals(reference.nextDouble(), x, 0.0);
            }
        }
    }

    /** Token 43 copies token 6 (K and V): every per-token scorer must give them identical scores. */
    @ParameterizedTest(name = "d={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {8, 64})
    void bitIdenticalInputsGiveBitIdenticalScores(int d) {
        LayerSnapshot s = snapshot(new SyntheticLayer(5, 4, 2, 45, d).duplicate(6, 43));
        for (KvScorer scorer : List.of(
                new KeyNormScorer(),
                KeyDiffScorer.defaults(),
                new TovaScorer(),
                ExpectedAttentionScorer.defaults(),
                CapKvScorer.defaults(),
                JacapScorer.defaults(),
                JacapScorer.literal())) {
            double[][] scores = scorer.score(s);
            for (int g = 0; g < scores.length; g++) {
                assertEquals(scores[g][6], scores[g][43], 0.0, scorer.name() + " head " + g);
            }
        }
    }

    @Test
    void zeroValueRowScoresExactlyZero() {
        LayerSnapshot s =
                snapshot(new SyntheticLayer(9, 4, 2, 40, 8).zeroValue(10).zeroValue(37));
        for (KvScorer scorer : List.of(
                ExpectedAttentionScorer.defaults(),
                CapKvScorer.defaults(),
                JacapScorer.defaults(),
                JacapScorer.literal())) {
            double[][] scores = scorer.score(s);
            for (double[] row : scores) {
                assertEquals(0.0, row[10], 0.0, scorer.name());
                assertEquals(0.0, row[37], 0.0, scorer.name());
            }
        }
    }

    @Test
    void capacityScoresLieInUnitIntervalAndSinksComeFirst() {
        LayerSnapshot s = snapshot(new SyntheticLayer(11, 4, 2, 60, 16));
        for (KvScorer scorer : List.of(CapKvScorer.defaults(), JacapScorer.defaults(), JacapScorer.literal())) {
            double[][] scores = scorer.score(s);
            double max = 0;
            for (double[] row : scores) {
                for (int i = 4; i < row.length; i++) {
                    assertTrue(row[i] >= 0 && row[i] < 1, scorer.name() + " " + row[i]);
                    max = Math.max(max, row[i]);
                }
            }
            for (double[] row : scores) {
                for (int i = 0; i < 4; i++) {
                    assertEquals(max + (4 - i), row[i], 0.0);
                }
            }
        }
    }

    /** Jacap's log-domain weights equal ᾱ²(1−ᾱ)²κ/d computed directly (plain softmax, two-pass variance). */
    @Test
    void jacapWeightsFollowTheDirectFormula() {
        SyntheticLayer layer = new SyntheticLayer(13, 2, 1, 30, 8);
        LayerSnapshot s = snapshot(layer);
        int d = 8;
        int m = 26;
        for (JacapScorer scorer : List.of(JacapScorer.literal(), JacapScorer.defaults())) {
            Map<String, double[][]> trace = trace(scorer, s, 2);
            for (int h = 0; h < 2; h++) {
                double[] mean = new double[d];
                double[] var = new double[d];
                for (int t = 4; t < 30; t++) {
                    for (int a = 0; a < d; a++) {
                        mean[a] += layer.qPre[h][t][a] / m;
                    }
                }
                for (int t = 4; t < 30; t++) {
                    for (int a = 0; a < d; a++) {
                        var[a] += Math.pow(layer.qPre[h][t][a] - mean[a], 2) / m;
                    }
                }
                double[] mu = new double[d];
                s.futureRotation().apply(mean, mu);
                double[] c = s.futureRotation().cbar();
                double[] sn = s.futureRotation().sbar();
                double[] lambda = new double[d];
                for (int j = 0; j < d / 2; j++) { // NEOX pairs (j, j + d/2)
                    lambda[j] = c[j] * c[j] * var[j] + sn[j] * sn[j] * var[j + d / 2];
                    lambda[j + d / 2] = sn[j] * sn[j] * var[j] + c[j] * c[j] * var[j + d / 2];
                }
                double[] alpha = new double[m];
                double sum = 0;
                for (int i = 0; i < m; i++) {
                    double dot = 0;
                    for (int a = 0; a < d; a++) {
                        dot += layer.keys[0][4 + i][a] * mu[a];
                    }
                    alpha[i] = Math.exp(dot / (10 * Math.sqrt(d)));
                    sum += alpha[i];
                }
                double[] w = new double[m];
                double maxW = 0;
                for (int i = 0; i < m; i++) {
                    alpha[i] /= sum;
                    double kappa = 0;
                    for (int a = 0; a < d; a++) {
                        kappa += lambda[a] * layer.keys[0][4 + i][a] * layer.keys[0][4 + i][a];
                    }
                    w[i] = alpha[i] * alpha[i] * (1 - alpha[i]) * (1 - alpha[i]) * kappa / d;
                    maxW = Math.max(maxW, w[i]);
                }
                for (int i = 0; i < m; i++) {
                    double want = scorer.normalize() ? w[i] / maxW : w[i];
                    assertEquals(want, trace.get("w")[h][i], 1e-10 * want, "head " + h + " token " + i);
                }
            }
        }
    }

    private static Map<String, double[][]> trace(KvScorer scorer, LayerSnapshot s, int rows) {
        Map<String, double[][]> out = new HashMap<>();
        scorer.score(s, (name, row, values) -> out.computeIfAbsent(name, k -> new double[rows][])[row] = values);
        return out;
    }

    @Test
    void streamingKeepsExactlySinksAndRecent() {
        int n = 30;
        LayerSnapshot s = snapshot(new SyntheticLayer(2, 2, 1, n, 8));
        double[][] scores = new StreamingScorer(4).score(s);
        for (int budget = 0; budget <= n; budget++) {
            int[] kept = new UniformAllocator().select(scores, Budget.kept(budget), 0, 1)[0];
            int b = budget;
            int[] want = IntStream.concat(
                            IntStream.range(0, Math.min(b, 4)), IntStream.range(n - Math.max(b - 4, 0), n))
                    .distinct()
                    .sorted()
                    .toArray();
            assertArrayEquals(want, kept, "budget " + budget);
            // the README's budget-dependent scores select the same entries
            assertArrayEquals(want, TopK.top(readmeStreamingScores(n, b), b), "README scores, budget " + budget);
        }
    }

    /** The fixture README's StreamingLLM scores for budget B (pruned 0, protected by priority). */
    private static double[] readmeStreamingScores(int n, int budget) {
        double[] s = new double[n];
        int recent = Math.max(budget - 4, 0);
        int prot = 4 + recent;
        for (int i = 0; i < 4; i++) {
            s[i] = prot - i;
        }
        for (int j = 0; j < recent; j++) {
            s[n - 1 - j] = recent - j;
        }
        return s;
    }

    @Test
    void snapKvKeepsItsWindowNewestFirst() {
        int n = 40;
        LayerSnapshot s = snapshot(new SyntheticLayer(4, 4, 2, n, 8));
        double[][] scores = new SnapKvScorer(8, 5).score(s);
        int[][] kept = new UniformAllocator().select(scores, Budget.kept(12), 0, 1);
        for (int[] head : kept) {
            for (int p = n - 8; p < n; p++) {
                assertTrue(Arrays.binarySearch(head, p) >= 0, "window " + p);
            }
        }
        int[][] tight = new UniformAllocator().select(scores, Budget.kept(5), 0, 1);
        for (int[] head : tight) {
            assertArrayEquals(new int[] {35, 36, 37, 38, 39}, head);
        }
    }

    @Test
    void tiesBreakTowardLowerPositions() {
        double[][] scores = {{1, 3, 3, 2, 3, 0.0}, {3, 3, -0.0, 3, 1, 0.0}};
        assertArrayEquals(new int[] {1, 2}, new UniformAllocator().select(scores, Budget.kept(2), 0, 1)[0]);
        assertArrayEquals(new int[] {0, 1, 3, 4}, new UniformAllocator().select(scores, Budget.kept(4), 0, 1)[1]);
        assertArrayEquals(
                new int[] {0, 1, 2, 3, 4},
                new UniformAllocator().select(scores, Budget.kept(5), 0, 1)[1],
                "−0.0 ties with 0.0");
        // AdaKV: equal scores across heads go to head 0 first
        int[][] ada = new AdaKvAllocator(0.0).select(new double[][] {{5, 1, 1}, {5, 1, 1}}, Budget.kept(2), 0, 1);
        assertArrayEquals(new int[] {0, 1, 2}, ada[0]);
        assertArrayEquals(new int[] {0}, ada[1]);
    }

    @Test
    void adaKvSpendsTheLayerBudgetAndGuaranteesEachHead() {
        LayerSnapshot s = snapshot(new SyntheticLayer(6, 8, 4, 50, 8));
        double[][] scores = CapKvScorer.defaults().score(s);
        int[][] kept = new AdaKvAllocator(0.2).select(scores, Budget.ratio(0.5), 0, 1);
        int total = 0;
        for (int g = 0; g < kept.length; g++) {
            total += kept[g].length;
            assertTrue(kept[g].length >= 5, "safeguard");
            int[] top = TopK.top(scores[g], kept[g].length);
            assertArrayEquals(top, kept[g], "a head keeps a prefix of its own order");
        }
        assertEquals(4 * 25, total);
    }

    @Test
    void noneKeepsEverything() {
        LayerSnapshot s = snapshot(new SyntheticLayer(6, 2, 1, 20, 8));
        KeptEntries kept = EvictionPolicy.none().select(s, Budget.ratio(0.9));
        assertArrayEquals(IntStream.range(0, 20).toArray(), kept.kept(0));
        assertFalse(EvictionPolicy.none().evicts());
    }

    @Test
    void oracleKeepsTheMostAttendedPositions() {
        LayerSnapshot s = snapshot(new SyntheticLayer(6, 2, 1, 20, 8));
        double[] mass = new double[20];
        mass[3] = 5;
        mass[17] = 4;
        mass[9] = 3;
        FutureAttentionOracle oracle = new FutureAttentionOracle((layer, head) -> mass);
        int[] kept = new EvictionPolicy(oracle, new UniformAllocator())
                .select(s, Budget.kept(3))
                .kept(0);
        assertArrayEquals(new int[] {3, 9, 17}, kept);
    }

    /** Heads of different lengths (after an earlier per-head eviction) are scored per head. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("scorers")
    void raggedHeads(KvScorer scorer) {
        SyntheticLayer layer = new SyntheticLayer(8, 4, 2, 40, 8);
        LayerSnapshot full = snapshot(layer);
        KvHeadRows h1 = full.head(1);
        int keep = 31; // drop entries 5..13 of head 1
        List<Integer> idx = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            if (i < 5 || i > 13) {
                idx.add(i);
            }
        }
        double[] k = new double[keep * 8];
        double[] v = new double[keep * 8];
        int[] p = new int[keep];
        for (int j = 0; j < keep; j++) {
            System.arraycopy(h1.keys(), idx.get(j) * 8, k, j * 8, 8);
            System.arraycopy(h1.values(), idx.get(j) * 8, v, j * 8, 8);
            p[j] = idx.get(j);
        }
        LayerSnapshot ragged = new LayerSnapshot(
                0,
                1,
                full.shape(),
                new KvHeadRows[] {full.head(0), new KvHeadRows(keep, 8, k, v, p)},
                full.futureRotation(),
                full.queries());
        double[][] scores = scorer.score(ragged);
        assertEquals(40, scores[0].length);
        assertEquals(keep, scores[1].length);
        int[][] kept = new AdaKvAllocator(0.2).select(scores, Budget.ratio(0.5), 0, 1);
        assertEquals(20 + 15, kept[0].length + kept[1].length);
    }
}

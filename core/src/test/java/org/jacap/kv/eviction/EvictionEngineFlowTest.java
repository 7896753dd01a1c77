package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.jacap.simd.RopeLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The phase-2 path on a toy float cache: observe while decoding, evict, compact rows, positions
 * and statistics, keep decoding, evict again.
 */
class EvictionEngineFlowTest {
    private static final int HQ = 4;
    private static final int HKV = 2;
    private static final int D = 8;

    /** A float cache per KV head, as the engine keeps it. */
    private static final class ToyCache {
        final float[][] keys = new float[HKV][256 * D];
        final float[][] values = new float[HKV][256 * D];
        final int[][] positions = new int[HKV][256];
        final int[] length = new int[HKV];
    }

    /** Every evicting scorer of the registry (snapkv with a window the toy prompt fills). */
    static java.util.stream.Stream<String> evictingScorers() {
        return EvictionPolicies.SCORERS.stream()
                .filter(n -> !n.equals("none"))
                .map(n -> n.equals("snapkv") ? "snapkv:window=8" : n);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("evictingScorers")
    void decodeEvictDecodeEvict(String spec) {
        AttentionShape shape = new AttentionShape(HQ, HKV, D);
        EvictionPolicy policy = EvictionPolicies.policy(spec, "ada");
        QueryStatistics stats = new QueryStatistics(shape, policy.statistics());
        ToyCache cache = new ToyCache();
        SplittableRandom r = new SplittableRandom(17);
        double[] invFreq = {1.0, 0.1, 0.01, 0.001};
        int position = 0;
        for (int round = 0; round < 2; round++) {
            for (int step = 0; step < 40; step++, position++) {
                token(r, cache, stats, position);
            }
            int[] before = cache.length.clone();
            int[][] positionsBefore = new int[HKV][];
            double[][] seenBefore = new double[HQ][];
            for (int g = 0; g < HKV; g++) {
                positionsBefore[g] = Arrays.copyOf(cache.positions[g], before[g]);
            }
            if (stats.gathers(QueryStatistic.ATTENTION_RECEIVED)) {
                for (int h = 0; h < HQ; h++) {
                    seenBefore[h] = new double[before[h / 2]];
                    for (int i = 0; i < before[h / 2]; i++) {
                        seenBefore[h][i] = stats.attentionSeenBy(h, i);
                    }
                }
            }
            KvHeadRows[] heads = new KvHeadRows[HKV];
            for (int g = 0; g < HKV; g++) {
                heads[g] = KvHeadRows.copyOf(cache.keys[g], cache.values[g], cache.positions[g], cache.length[g], D);
            }
            AveragedRotation rbar = AveragedRotation.overPositions(RopeLayout.NORMAL, invFreq, position, 512);
            KeptEntries kept = policy.select(new LayerSnapshot(1, 4, shape, heads, rbar, stats), Budget.kept(20));
            int total = 0;
            for (int g = 0; g < HKV; g++) {
                int[] k = kept.kept(g);
                total += k.length;
                for (int j = 1; j < k.length; j++) {
                    assertTrue(k[j] > k[j - 1], "ascending");
                }
                KeptEntries.compactRows(cache.keys[g], D, k);
                KeptEntries.compactRows(cache.values[g], D, k);
                cache.length[g] = KeptEntries.compact(cache.positions[g], k);
                stats.retainEntries(g, k);
                for (int j = 0; j < k.length; j++) {
                    assertEquals(positionsBefore[g][k[j]], cache.positions[g][j]);
                    if (stats.gathers(QueryStatistic.ATTENTION_RECEIVED)) {
                        for (int h = 2 * g; h < 2 * g + 2; h++) {
                            assertEquals(
                                    seenBefore[h][k[j]],
                                    stats.attentionSeenBy(h, j),
                                    0.0,
                                    "attention follows its entry");
                        }
                    }
                }
            }
            assertEquals(2 * 20, total);
            stats.resetMoments();
        }
        // the newest token survives every policy that protects recency
        if (spec.startsWith("snapkv") || spec.equals("tova") || spec.equals("streaming")) {
            for (int g = 0; g < HKV; g++) {
                assertEquals(position - 1, cache.positions[g][cache.length[g] - 1]);
            }
        }
    }

    /** One decoded token: append K/V, observe its queries and its attention over each head's cache. */
    private static void token(SplittableRandom r, ToyCache cache, QueryStatistics stats, int position) {
        for (int g = 0; g < HKV; g++) {
            int at = cache.length[g]++;
            for (int a = 0; a < D; a++) {
                cache.keys[g][at * D + a] = (float) r.nextGaussian();
                cache.values[g][at * D + a] = (float) r.nextGaussian();
            }
            cache.positions[g][at] = position;
        }
        float[] q = new float[D];
        float[] probs = new float[256];
        for (int h = 0; h < HQ; h++) {
            for (int a = 0; a < D; a++) {
                q[a] = (float) (0.5 + r.nextGaussian());
            }
            stats.observePreRope(h, position, q, 0);
            stats.observePostRope(h, position, q, 0);
            int g = h / 2;
            int n = cache.length[g];
            float max = Float.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++) {
                float s = 0;
                for (int a = 0; a < D; a++) {
                    s += q[a] * cache.keys[g][i * D + a];
                }
                probs[i] = s / (float) Math.sqrt(D);
                max = Math.max(max, probs[i]);
            }
            float sum = 0;
            for (int i = 0; i < n; i++) {
                sum += probs[i] = (float) Math.exp(probs[i] - max);
            }
            for (int i = 0; i < n; i++) {
                probs[i] /= sum;
            }
            stats.observeAttention(h, probs, 0, n);
        }
    }
}

package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.Map;
import org.jacap.JacapException;
import org.junit.jupiter.api.Test;

/**
 * SnapKV's value-weighted form ({@code snapkv:values=...,group=...}) against plain SnapKV's own
 * pooled window attention, weighed by hand; the plain form is unchanged by the extension.
 */
class SnapKvValueWeightTest {
    private static final int N = 40;
    private static final int D = 8;
    private static final int WINDOW = 8;

    private static LayerSnapshot snapshot(double[] energy) {
        LayerSnapshot s = new SyntheticLayer(5, 4, 2, N, D).snapshot(SyntheticLayer.everything(4, WINDOW));
        if (energy == null) {
            return s;
        }
        KvHeadRows[] heads = {s.head(0), s.head(1)};
        return new LayerSnapshot(0, 1, s.shape(), heads, s.futureRotation(), s.queries(), energy);
    }

    /** Plain SnapKV's pooled attention per query head, over the entries before the window. */
    private static Map<Integer, double[]> pooled(LayerSnapshot s) {
        Map<Integer, double[]> pooled = new HashMap<>();
        new SnapKvScorer(WINDOW, 5).score(s, (name, row, values) -> {
            if (name.equals("pooled")) {
                pooled.put(row, values);
            }
        });
        return pooled;
    }

    @Test
    void outputWeightIsThePooledAttentionTimesTheEnergyWeightedDeviationGroupMax() {
        double[] energy = new double[4 * D];
        for (int c = 0; c < energy.length; c++) {
            energy[c] = 0.25 + (c % 5);
        }
        LayerSnapshot s = snapshot(energy);
        Map<Integer, double[]> pooled = pooled(s);
        double[][] scores = new SnapKvScorer(WINDOW, 5, ValueWeight.OUTPUT, GroupReduction.MAX).score(s);
        for (int g = 0; g < 2; g++) {
            double[] v = s.head(g).values();
            int start = pooled.get(2 * g).length;
            double[] expected = new double[start];
            for (int h = 2 * g; h < 2 * g + 2; h++) {
                double[] a = pooled.get(h);
                double total = 0;
                double[] mean = new double[D];
                for (int i = 0; i < start; i++) {
                    total += a[i];
                    for (int c = 0; c < D; c++) {
                        mean[c] += a[i] * v[i * D + c];
                    }
                }
                for (int i = 0; i < start; i++) {
                    double sq = 0;
                    for (int c = 0; c < D; c++) {
                        double x = v[i * D + c] - mean[c] / total;
                        sq += energy[h * D + c] * x * x;
                    }
                    expected[i] = Math.max(h == 2 * g ? 0 : expected[i], a[i] * Math.sqrt(sq));
                }
            }
            for (int i = 0; i < start; i++) {
                assertThat(scores[g][i]).as("head %d entry %d", g, i).isCloseTo(expected[i], within(1e-12));
            }
            // the window stays protected, newest first, as in plain SnapKV
            for (int i = start; i < N - 1; i++) {
                assertThat(scores[g][i + 1]).isGreaterThan(scores[g][i]);
            }
            assertThat(scores[g][start]).isGreaterThan(expected[0]);
        }
    }

    @Test
    void noneAndMeanIsPlainSnapKvBitForBit() {
        LayerSnapshot s = snapshot(null);
        assertThat(new SnapKvScorer(WINDOW, 5, ValueWeight.NONE, GroupReduction.MEAN).score(s))
                .isDeepEqualTo(new SnapKvScorer(WINDOW, 5).score(s));
        assertThat(java.util.Arrays.deepEquals(
                        new SnapKvScorer(WINDOW, 5, ValueWeight.DEVIATION, GroupReduction.MEAN).score(s),
                        new SnapKvScorer(WINDOW, 5).score(s)))
                .isFalse();
    }

    @Test
    void specsRoundTripThroughTheRegistryAndTheFusedScorer() {
        assertThat(new SnapKvScorer(64, 5).spec()).isEqualTo("snapkv:window_size=64,kernel_size=5");
        SnapKvScorer weighted = new SnapKvScorer(32, 5, ValueWeight.OUTPUT, GroupReduction.MAX);
        assertThat(weighted.spec()).isEqualTo("snapkv:window_size=32,kernel_size=5,values=output,group=max");
        assertThat(EvictionPolicies.scorer(weighted.spec())).isEqualTo(weighted);
        assertThat(EvictionPolicies.scorer("snapkv:values=output,group=max"))
                .isEqualTo(new SnapKvScorer(64, 5, ValueWeight.OUTPUT, GroupReduction.MAX));

        KvScorer fused = EvictionPolicies.scorer("jacap:relevance=snapkv,window=64,values=output,group=max");
        assertThat(((FusedJacapScorer) fused).relevance())
                .isEqualTo(new SnapKvScorer(64, 5, ValueWeight.OUTPUT, GroupReduction.MAX));
        assertThat(EvictionPolicies.scorer(fused.spec())).isEqualTo(fused);
        // the fused parser's snapkv window stays 32 unless given, attention alone
        assertThat(((FusedJacapScorer) EvictionPolicies.scorer("jacap:relevance=snapkv")).relevance())
                .isEqualTo(new SnapKvScorer(32, 5));
        assertThatThrownBy(() -> EvictionPolicies.scorer("snapkv:values=sum"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("values");
    }
}

package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** H2O's observed attention and its value-weighted forms, against sums worked by hand. */
class ObservedAttentionScorerTest {
    /** Two query heads on one KV head of dimension 2; three entries. */
    private static final AttentionShape SHAPE = new AttentionShape(2, 1, 2);

    private static LayerSnapshot layer() {
        QueryStatistics q = new QueryStatistics(SHAPE, StatisticsSpec.of(0, 0, QueryStatistic.ATTENTION_RECEIVED));
        // head 0 saw all three entries once; head 1 twice, the second time entries 0..1 only
        q.observeAttention(0, new double[] {0.5, 0.25, 0.25}, 0, 3);
        q.observeAttention(1, new double[] {0.2, 0.2, 0.6}, 0, 3);
        q.observeAttention(1, new double[] {0.6, 0.4}, 0, 2);
        double[][] keys = {{1, 0}, {0, 1}, {1, 1}};
        return new LayerSnapshot(0, 1, SHAPE, new KvHeadRows[] {KvHeadRows.ofRows(keys, VALUES)}, null, q);
    }

    /** The three entries' values. */
    private static final double[][] VALUES = {{3, 4}, {0, -2}, {1, 0}};

    /** Per query head mean attention: head 0 {0.5, 0.25, 0.25}; head 1 {0.4, 0.3, 0.6}. */
    private static final double[][] MEAN = {{0.5, 0.25, 0.25}, {0.4, 0.3, 0.6}};

    @Test
    void h2oIsTheGroupMeanOfEachHeadsMeanAttention() {
        double[] s = new ObservedAttentionScorer().score(layer())[0];
        assertThat(s).containsExactly(new double[] {0.45, 0.275, 0.425}, within(1e-12));
    }

    @Test
    void groupMaxKeepsWhatAnyHeadNeeds() {
        double[] s = new ObservedAttentionScorer(ValueWeight.NONE, GroupReduction.MAX).score(layer())[0];
        assertThat(s).containsExactly(new double[] {0.5, 0.3, 0.6}, within(1e-12));
    }

    @Test
    void normWeighsByTheValuesL1Norm() {
        double[] s = new ObservedAttentionScorer(ValueWeight.NORM, GroupReduction.MEAN).score(layer())[0];
        double[] l1 = {7, 2, 1};
        for (int i = 0; i < 3; i++) {
            assertThat(s[i]).as("entry %d", i).isCloseTo((MEAN[0][i] + MEAN[1][i]) / 2 * l1[i], within(1e-12));
        }
    }

    @Test
    void deviationWeighsByTheDistanceFromTheHeadsMeanOutput() {
        double[] s = new ObservedAttentionScorer(ValueWeight.DEVIATION, GroupReduction.MEAN).score(layer())[0];
        assertThat(s).containsExactly(weighedByDeviation(new double[] {1, 1, 1, 1}), within(1e-12));
    }

    /**
     * The group mean of {@code a_hi (Σ_c e_hc (v_ic − ō_hc)²)^½}, ō_h the head's attention-weighted
     * mean value, worked out for the layer's two heads and dimensions.
     */
    private static double[] weighedByDeviation(double[] energy) {
        double[][] v = VALUES;
        double[] expected = new double[3];
        for (int h = 0; h < 2; h++) {
            double total = MEAN[h][0] + MEAN[h][1] + MEAN[h][2];
            double o0 = 0;
            double o1 = 0;
            for (int i = 0; i < 3; i++) {
                o0 += MEAN[h][i] * v[i][0] / total;
                o1 += MEAN[h][i] * v[i][1] / total;
            }
            for (int i = 0; i < 3; i++) {
                double x = v[i][0] - o0;
                double y = v[i][1] - o1;
                expected[i] += MEAN[h][i] * Math.sqrt(energy[2 * h] * x * x + energy[2 * h + 1] * y * y) / 2;
            }
        }
        return expected;
    }

    @Test
    void outputWeighsEachDimensionByItsColumnEnergy() {
        LayerSnapshot plain = layer();
        // head 0: dimension 0 counts 4×, dimension 1 not at all; head 1: both once (plain deviation)
        double[] energy = {4, 0, 1, 1};
        LayerSnapshot weighted =
                new LayerSnapshot(0, 1, SHAPE, new KvHeadRows[] {plain.head(0)}, null, plain.queries(), energy);
        double[] s = new ObservedAttentionScorer(ValueWeight.OUTPUT, GroupReduction.MEAN).score(weighted)[0];
        assertThat(s).containsExactly(weighedByDeviation(energy), within(1e-12));
        // without energies in the snapshot it is the plain deviation
        assertThat(new ObservedAttentionScorer(ValueWeight.OUTPUT, GroupReduction.MEAN).score(plain)[0])
                .containsExactly(
                        new ObservedAttentionScorer(ValueWeight.DEVIATION, GroupReduction.MEAN).score(plain)[0]);
    }

    @Test
    void anEntryWhoseValueIsTheOutputCostsNothing() {
        QueryStatistics q = new QueryStatistics(SHAPE, StatisticsSpec.of(0, 0, QueryStatistic.ATTENTION_RECEIVED));
        q.observeAttention(0, new double[] {0.5, 0.5}, 0, 2);
        q.observeAttention(1, new double[] {0.5, 0.5}, 0, 2);
        double[][] same = {{2, 2}, {2, 2}};
        LayerSnapshot l = new LayerSnapshot(0, 1, SHAPE, new KvHeadRows[] {KvHeadRows.ofRows(same, same)}, null, q);
        assertThat(new ObservedAttentionScorer(ValueWeight.DEVIATION, GroupReduction.MEAN).score(l)[0])
                .containsExactly(0.0, 0.0);
    }

    @Test
    void specsRoundTripAndTheDefaultStaysPlainH2o() {
        assertThat(new ObservedAttentionScorer().spec()).isEqualTo("h2o");
        ObservedAttentionScorer dev = new ObservedAttentionScorer(ValueWeight.DEVIATION, GroupReduction.MAX);
        assertThat(dev.spec()).isEqualTo("h2o:values=deviation,group=max");
        assertThat(EvictionPolicies.scorer(dev.spec())).isEqualTo(dev);
        KvScorer fused = EvictionPolicies.scorer("jacap:relevance=h2o,values=norm");
        assertThat(fused.spec()).contains("relevance=h2o").contains("values=norm,group=max");
        assertThat(EvictionPolicies.scorer(fused.spec())).isEqualTo(fused);
    }
}

package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.jacap.JacapException;
import org.junit.jupiter.api.Test;

/** Settings parsing and sizing, R̄ in closed form and with partial RoPE, bulk moments. */
class EvictionSettingsTest {

    @Test
    void parseGivesDefaultsAndNamesTheFlagOfEveryBadCombination() {
        assertThat(EvictionSettings.parse(null, null, null, null, null, null)).isNull();
        assertThat(EvictionSettings.parse("none", null, null, null, null, null)).isNull();
        EvictionSettings b = EvictionSettings.parse("jacap-paper:tau=20", null, null, 1024, null, null);
        assertThat(b.budget()).isEqualTo(1024);
        assertThat(b.slack()).isEqualTo(128);
        assertThat(b.ratio()).isZero();
        assertThat(b.policy().scorer().spec()).contains("tau=20.0");
        assertThat(EvictionSettings.parse("capkv", null, null, 64, null, null).slack())
                .isEqualTo(16);
        EvictionSettings p = EvictionSettings.parse("knorm", "ada", 0.5, 64, 8, "4,16");
        assertThat(p.policy().describe()).isEqualTo("knorm:protect_sinks=4,protect_recent=16 / ada:alpha=0.2");
        assertThat(p.describe()).endsWith(", ratio 0.5, budget 64 + slack 8");
        assertThat(EvictionSettings.parse("snapkv:window=8", null, null, 64, null, "0,4")
                        .policy()
                        .scorer()
                        .spec())
                .isEqualTo("snapkv:window_size=8,kernel_size=5,protect_sinks=0,protect_recent=4");

        assertError(() -> EvictionSettings.parse("jacap", null, null, null, null, null), "needs --kv-ratio R");
        assertError(() -> EvictionSettings.parse(null, null, 0.5, null, null, null), "--kv-ratio needs an evicting");
        assertError(() -> EvictionSettings.parse("none", null, null, null, 4, null), "--kv-slack needs an evicting");
        assertError(() -> EvictionSettings.parse("jacap", null, 1.0, null, null, null), "[0, 1), got 1.0");
        assertError(() -> EvictionSettings.parse("jacap", null, Double.NaN, null, null, null), "[0, 1), got NaN");
        assertError(() -> EvictionSettings.parse("jacap", null, null, -3, null, null), "--kv-budget must be >= 1");
        assertError(() -> EvictionSettings.parse("jacap", null, 0.5, null, 8, null), "--kv-slack needs --kv-budget");
        assertError(() -> EvictionSettings.parse("jacap", null, null, 8, 0, null), "--kv-slack must be >= 1");
        assertError(() -> EvictionSettings.parse("jacap", null, null, 8, null, "1,x"), "SINKS,RECENT");
        assertError(() -> EvictionSettings.parse("jacap", null, null, 8, null, "-1,2"), ">= 0");
        assertError(() -> EvictionSettings.parse("jacap:protect_recent=3", null, null, 8, null, "1,2"), "give one");
        assertError(() -> EvictionSettings.parse("jacop", null, null, 8, null, null), "unknown KV eviction policy");
        assertError(() -> EvictionSettings.parse("jacap", "fair", null, 8, null, null), "unknown KV budget allocator");
    }

    private static void assertError(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(JacapException.class).hasMessageContaining(message);
    }

    @Test
    void theCacheIsSizedForTheAllocatorsLargestShare() {
        assertThat(EvictionSettings.budget(EvictionPolicies.policy("capkv", "uniform"), 128)
                        .headCapacity(4))
                .isEqualTo(144);
        assertThat(EvictionSettings.budget(EvictionPolicies.policy("capkv", "pyramid"), 128)
                        .headCapacity(4))
                .isEqualTo(2 * 128 + 16);
        assertThat(EvictionSettings.budget(EvictionPolicies.policy("capkv", "ada"), 128)
                        .headCapacity(4))
                .isEqualTo(4 * 128 + 16);
        assertThatThrownBy(() -> EvictionSettings.ratio(EvictionPolicies.policy("capkv", "uniform"), 0.5)
                        .headCapacity(4))
                .isInstanceOf(JacapException.class);
        EvictionSettings both =
                new EvictionSettings(EvictionPolicies.policy("capkv", "uniform"), 0.75, 100, 16, 256, 512);
        assertThat(both.promptBudget(200).keptCount(200)).isEqualTo(50);
        assertThat(both.promptBudget(1000).keptCount(116))
                .as("the budget caps the ratio")
                .isEqualTo(100);
        assertThat(EvictionSettings.ratio(EvictionPolicies.policy("capkv", "uniform"), 0.9)
                        .promptBudget(1)
                        .keptCount(100))
                .isEqualTo(9);
    }

    @Test
    void averagedRotationInClosedFormEqualsTheSum() {
        double[] invFreq = {1.0, 0.31, 0.01, 1e-4, 3e-7, 0.0};
        for (long first : new long[] {0, 37, 100_000, 5_000_000}) {
            AveragedRotation r = AveragedRotation.overPositions(RopeLayout.NORMAL, invFreq, first, 512);
            for (int j = 0; j < invFreq.length; j++) {
                double c = 0;
                double s = 0;
                for (long p = first; p < first + 512; p++) {
                    c += Math.cos(p * invFreq[j]);
                    s += Math.sin(p * invFreq[j]);
                }
                assertThat(r.cbar()[j]).as("cbar %d at %d", j, first).isCloseTo(c / 512, within(1e-12));
                assertThat(r.sbar()[j]).as("sbar %d at %d", j, first).isCloseTo(s / 512, within(1e-12));
            }
        }
    }

    @Test
    void partialRopeRotatesOnlyItsPairs() {
        double[] invFreq = {1.0, 0.1}; // 4 rotated dimensions of 6
        AveragedRotation neox = AveragedRotation.overPositions(RopeLayout.NEOX, invFreq, 6, 10, 512);
        double[] x = {1, 2, 3, 4, 5, 6};
        double[] out = new double[6];
        neox.apply(x, out);
        double c0 = neox.cbar()[0];
        double s0 = neox.sbar()[0];
        assertThat(out[0]).isCloseTo(c0 * 1 - s0 * 3, within(1e-15)); // pair (0, 2): halves of the 4 rotated dims
        assertThat(out[2]).isCloseTo(s0 * 1 + c0 * 3, within(1e-15));
        assertThat(out[4]).isEqualTo(5);
        assertThat(out[5]).isEqualTo(6);
        double[] var = {1, 1, 1, 1, 7, 8};
        neox.applyToDiagonal(var, out);
        assertThat(out[4]).isEqualTo(7);
        assertThat(out[5]).isEqualTo(8);
        assertThatThrownBy(() -> new LayerGeometry(new AttentionShape(2, 1, 4), RopeLayout.NORMAL, new double[3], 0))
                .isInstanceOf(JacapException.class);
    }

    @Test
    void bulkMomentsEqualTheIncrementalOnes() {
        AttentionShape shape = new AttentionShape(2, 1, 5);
        StatisticsSpec spec = StatisticsSpec.of(
                3,
                0,
                QueryStatistic.PRE_ROPE_MEAN,
                QueryStatistic.PRE_ROPE_VARIANCE,
                QueryStatistic.PRE_ROPE_COVARIANCE);
        QueryStatistics welford = new QueryStatistics(shape, spec);
        QueryStatistics bulk = new QueryStatistics(shape, spec);
        SplittableRandom r = new SplittableRandom(5);
        int rows = 40;
        float[] data = new float[rows * 10];
        int[] positions = new int[rows];
        for (int t = 0; t < rows; t++) {
            positions[t] = t;
            for (int a = 0; a < 10; a++) {
                data[t * 10 + a] = (float) (3 + r.nextGaussian());
            }
            for (int h = 0; h < 2; h++) {
                welford.observePreRope(h, t, data, t * 10 + h * 5);
            }
        }
        bulk.observePreRope(0, 10, data, 0); // replaced, not added to
        for (int h = 0; h < 2; h++) {
            bulk.replaceMoments(h, data, h * 5, 10, positions, rows);
        }
        double[] a = new double[25];
        double[] b = new double[25];
        for (int h = 0; h < 2; h++) {
            assertThat(bulk.momentCount(h)).isEqualTo(rows - 3);
            welford.meanInto(h, a);
            bulk.meanInto(h, b);
            for (int i = 0; i < 5; i++) {
                assertThat(b[i]).isCloseTo(a[i], within(1e-12));
            }
            welford.varianceInto(h, a);
            bulk.varianceInto(h, b);
            for (int i = 0; i < 5; i++) {
                assertThat(b[i]).isCloseTo(a[i], within(1e-12));
            }
            welford.covarianceInto(h, a);
            bulk.covarianceInto(h, b);
            for (int i = 0; i < 25; i++) {
                assertThat(b[i]).isCloseTo(a[i], within(1e-12));
            }
        }
    }
}

package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.jacap.JacapException;
import org.jacap.simd.RopeLayout;
import org.junit.jupiter.api.Test;

/** Settings parsing and sizing, R̄ in closed form and with partial RoPE, bulk moments. */
class EvictionSettingsTest {

    @Test
    void outOfRangeValuesAreOneLineWithoutFlagNames() {
        EvictionPolicy p = EvictionPolicies.policy("capkv", "uniform");
        assertError(() -> EvictionSettings.of(p, 1.0, 0, 0), "the compression ratio must be in [0, 1), got 1.0");
        assertError(() -> EvictionSettings.of(p, 0, -3, 0), "the eviction budget must be >= 1, got -3");
        assertError(() -> EvictionSettings.of(p, 0, 8, 0), "the eviction slack must be >= 1, got 0");
        assertError(() -> EvictionSettings.budget(p, 0), "the eviction budget must be >= 1, got 0");
        assertThat(EvictionSettings.of(p, 0.5, 64, 8).describe()).endsWith(", ratio 0.5, budget 64 + slack 8");
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
        // jacap's head shares and reserve hold under a ratio; under a budget its budget form runs ...
        EvictionPolicy shares = EvictionPolicies.policy("jacap");
        assertThat(shares.allocator()).isInstanceOf(AdaKvAllocator.class);
        assertThat(EvictionSettings.ratio(shares, 0.5).policy()).isEqualTo(shares);
        EvictionSettings bounded = EvictionSettings.budget(shares, 128);
        FusedJacapScorer form = (FusedJacapScorer) bounded.policy().scorer();
        assertThat(bounded.policy().allocator()).isEqualTo(new UniformAllocator());
        assertThat(form.heads()).isEqualTo(FusedJacapScorer.HeadBudgets.UNIFORM);
        assertThat(form.capacityKernel())
                .isEqualTo(FusedJacapScorer.DEFAULT_BUDGET_KERNEL)
                .isEqualTo(1);
        assertThat(form.reserve())
                .isEqualTo(FusedJacapScorer.DEFAULT_BUDGET_RESERVE)
                .isEqualTo(48);
        assertThat(form).isEqualTo(EvictionPolicies.scorer("jacap:heads=uniform,reserve=48,capacity_kernel=1"));
        assertThat(bounded.headCapacity(4)).isEqualTo(144);
        // ... an allocator asked for apart from the scorer stays, beside the scorer's budget form ...
        EvictionPolicy asked = new EvictionPolicy(shares.scorer(), new AdaKvAllocator(0.5));
        assertThat(EvictionSettings.budget(asked, 128).policy())
                .isEqualTo(new EvictionPolicy(form, new AdaKvAllocator(0.5)));
        // ... protection wraps the budget form, and a scorer with one form is left as it is
        EvictionPolicy guarded = EvictionPolicies.policy("jacap:protect_sinks=4,protect_recent=8");
        assertThat(EvictionSettings.budget(guarded, 128).policy().scorer()).isEqualTo(new ProtectedScorer(form, 4, 8));
        EvictionPolicy capkvAda = EvictionPolicies.policy("capkv", "ada");
        assertThat(EvictionSettings.budget(capkvAda, 128).policy()).isEqualTo(capkvAda);
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

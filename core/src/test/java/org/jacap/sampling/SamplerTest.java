package org.jacap.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import org.jacap.JacapException;
import org.junit.jupiter.api.Test;

class SamplerTest {
    private static final float[] LOGITS = {1.0f, 2.0f, 0.5f, 1.5f, -1.0f};

    @Test
    void defaultsAreLlamaCpps() {
        SamplerConfig d = SamplerConfig.defaults();
        assertThat(d.temperature()).isEqualTo(0.8f);
        assertThat(d.topK()).isEqualTo(40);
        assertThat(d.topP()).isEqualTo(0.95f);
        assertThat(d.minP()).isEqualTo(0.05f);
        assertThat(d.repeatPenalty()).isEqualTo(1.0f);
        assertThat(d.repeatLastN()).isEqualTo(64);
        assertThat(d.hasRepeatPenalty()).isFalse();
    }

    @Test
    void theChainFollowsLlamaCppsOrder() {
        Sampler s = Sampler.fromConfig(
                SamplerConfig.defaults().withRepeatPenalty(1.1f, 64).withSeed(1), 10, 100);
        assertThat(s.stages())
                .containsExactly(
                        new RepetitionPenalty(1.1f, 64),
                        new TopK(40),
                        new TopP(0.95f),
                        new MinP(0.05f),
                        new Temperature(0.8f));
        assertThat(s.chooser()).isEqualTo(new RandomDraw());

        Sampler greedy = Sampler.fromConfig(SamplerConfig.greedy(), 10, 100);
        assertThat(greedy.stages()).isEmpty();
        assertThat(greedy.chooser()).isEqualTo(new Greedy());

        Sampler wholeContext = Sampler.fromConfig(SamplerConfig.greedy().withRepeatPenalty(1.3f, -1), 10, 100);
        assertThat(wholeContext.stages()).containsExactly(new RepetitionPenalty(1.3f, 100));
    }

    @Test
    void temperatureZeroIsGreedyWithTiesToTheLowestId() {
        Sampler s = Sampler.fromConfig(SamplerConfig.greedy(), 5, 100);
        assertThat(s.sample(new float[] {0, 3, 1, 3, 2}, 0)).isEqualTo(1);
        assertThat(s.sample(new float[] {9, 0, 0, 3, 1, 3, 2}, 2)).isEqualTo(1); // offset into a batch
    }

    @Test
    void greedyAppliesTheRepetitionPenaltyToAcceptedTokens() {
        Sampler s = Sampler.fromConfig(SamplerConfig.greedy().withRepeatPenalty(2f, 64), 3, 100);
        float[] logits = {1f, 1.8f, 0.5f};
        assertThat(s.sample(logits, 0)).isEqualTo(1);
        s.accept(1); // 1.8 → 0.9
        assertThat(s.sample(logits, 0)).isEqualTo(0);
    }

    @Test
    void aSeedDeterminesTheDraws() {
        SamplerConfig config = SamplerConfig.defaults()
                .withTopK(0)
                .withTopP(1)
                .withMinP(0)
                .withTemperature(1)
                .withSeed(42);
        int[] a = draws(Sampler.fromConfig(config, LOGITS.length, 100), 1000);
        int[] b = draws(Sampler.fromConfig(config, LOGITS.length, 100), 1000);
        int[] c = draws(Sampler.fromConfig(config.withSeed(43), LOGITS.length, 100), 1000);
        assertThat(a).isEqualTo(b);
        assertThat(a).isNotEqualTo(c);
    }

    @Test
    void aRandomSeedIsChosenAndReported() {
        Sampler s = Sampler.fromConfig(SamplerConfig.defaults(), LOGITS.length, 100);
        assertThat(s.seed()).isBetween(0L, 0xffffffffL);
        Sampler replay = Sampler.fromConfig(SamplerConfig.defaults().withSeed(s.seed()), LOGITS.length, 100);
        assertThat(draws(replay, 200)).isEqualTo(draws(s, 200));
    }

    @Test
    void drawsFollowTheSoftmaxDistribution() {
        SamplerConfig plain =
                SamplerConfig.defaults().withTopK(0).withTopP(1).withMinP(0).withSeed(2024);
        assertChiSquareFits(plain.withTemperature(1f), expected(LOGITS, 1f, LOGITS.length));
        assertChiSquareFits(plain.withTemperature(0.5f), expected(LOGITS, 0.5f, LOGITS.length));
        assertChiSquareFits(plain.withTemperature(2f), expected(LOGITS, 2f, LOGITS.length));
        // top-2 keeps ids 1 and 3; they are renormalised among themselves
        assertChiSquareFits(plain.withTemperature(1f).withTopK(2), expected(LOGITS, 1f, 2));
    }

    private static void assertChiSquareFits(SamplerConfig config, double[] expectedProbs) {
        int n = 100_000;
        int[] counts = new int[LOGITS.length];
        Sampler s = Sampler.fromConfig(config, LOGITS.length, 100);
        for (int i = 0; i < n; i++) {
            counts[s.sample(LOGITS, 0)]++;
        }
        double chi2 = 0;
        int cells = 0;
        for (int t = 0; t < counts.length; t++) {
            if (expectedProbs[t] == 0) {
                assertThat(counts[t]).as("token %d is outside the kept set", t).isZero();
                continue;
            }
            double e = n * expectedProbs[t];
            chi2 += (counts[t] - e) * (counts[t] - e) / e;
            cells++;
        }
        // 99.9% quantiles of chi-square for 1..4 degrees of freedom
        double[] critical = {0, 10.83, 13.82, 16.27, 18.47};
        assertThat(chi2).as("chi-square for %s", config).isLessThan(critical[cells - 1]);
    }

    /** Softmax of logits / t restricted to the `keep` highest logits. */
    private static double[] expected(float[] logits, float t, int keep) {
        int[] order = SamplingStagesTest.naiveOrder(logits, keep);
        double[] p = new double[logits.length];
        double sum = 0;
        for (int id : order) {
            p[id] = Math.exp(logits[id] / t);
            sum += p[id];
        }
        for (int id : order) {
            p[id] /= sum;
        }
        return p;
    }

    @Test
    void samplingAStepAllocatesNothing() {
        int vocab = 128_256;
        float[] logits = new float[vocab];
        SplittableRandom r = new SplittableRandom(5);
        for (int i = 0; i < vocab; i++) {
            logits[i] = (float) r.nextGaussian() * 3;
        }
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemoryEnabled()).isTrue();
        long control = threads.getCurrentThreadAllocatedBytes();
        sink = new long[1000];
        assertThat(threads.getCurrentThreadAllocatedBytes() - control)
                .as("the meter sees allocations")
                .isGreaterThan(8000);
        for (SamplerConfig config : new SamplerConfig[] {
            SamplerConfig.defaults().withSeed(1).withRepeatPenalty(1.1f, 64),
            SamplerConfig.defaults().withSeed(1).withTopK(0), // top-p over the whole vocabulary
            SamplerConfig.greedy().withRepeatPenalty(1.1f, 64)
        }) {
            Sampler s = Sampler.fromConfig(config, vocab, 4096);
            for (int i = 0; i < 200; i++) {
                s.accept(i * 7);
            }
            s.sample(logits, 0); // warm up
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20; i++) {
                s.accept(s.sample(logits, 0));
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated)
                    .as("bytes allocated by 20 steps of %s", config)
                    .isLessThan(1024);
        }
    }

    private static Object sink;

    @Test
    void invalidSettingsAreRejectedWithTheirName() {
        SamplerConfig d = SamplerConfig.defaults();
        assertThatThrownBy(() -> d.withTemperature(-0.1f))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("temperature");
        assertThatThrownBy(() -> d.withTopP(0f))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("top-p");
        assertThatThrownBy(() -> d.withTopP(1.5f)).hasMessageContaining("top-p must be in (0, 1]");
        assertThatThrownBy(() -> d.withMinP(-1f)).hasMessageContaining("min-p");
        assertThatThrownBy(() -> d.withTopK(-1)).hasMessageContaining("top-k");
        assertThatThrownBy(() -> d.withRepeatPenalty(0f, 64)).hasMessageContaining("repeat penalty");
        assertThatThrownBy(() -> d.withRepeatPenalty(1.1f, -2)).hasMessageContaining("repeat-last-n");
    }

    private static int[] draws(Sampler s, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = s.sample(LOGITS, 0);
        }
        return out;
    }
}

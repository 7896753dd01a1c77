package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.jacap.kv.KvCache;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;
import org.jacap.simd.Rope;
import org.jacap.simd.RopeLayout;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Gemma 3 (the random-weight oracle model: block 0 local with a 32-token window and RoPE base
 * 1e4, block 1 global with base 1e6): each layer gets R̄ from its own RoPE, and entries outside
 * a local layer's window are dropped rather than scored.
 */
class SlidingWindowEvictionTest {
    private static final int WINDOW = 32;

    @AutoClose
    private static Model model;

    private static int[] prompt;

    @BeforeAll
    static void load() {
        model = StoriesModel.load(StoriesModel.GEMMA3);
        prompt = new int[60];
        for (int i = 0; i < prompt.length; i++) {
            prompt[i] = 1 + (i * 37 + 11) % 500;
        }
    }

    @Test
    void globalLayersCarryTheirOutputProjectionsColumnEnergies() {
        List<LayerGeometry> layers = LayerGeometry.of(model);
        assertThat(layers.get(0).outputEnergy())
                .as("a window layer is never scored")
                .isNull();
        org.jacap.simd.WeightMatrix wo =
                model.weights().layers().get(1).attention().output().weight();
        double[] energy = layers.get(1).outputEnergy();
        assertThat(energy).hasSize(wo.cols());
        float[] row = new float[wo.cols()];
        double[] expected = new double[wo.cols()];
        for (int r = 0; r < wo.rows(); r++) {
            wo.dequantizeRow(r, row, 0);
            for (int c = 0; c < row.length; c++) {
                expected[c] += (double) row[c] * row[c];
            }
        }
        assertThat(energy).containsExactly(expected);
        assertThat(java.util.Arrays.stream(energy).min().orElseThrow()).isPositive();
        assertThat(LayerGeometry.of(model)).as("computed once per model").isSameAs(layers);
    }

    @Test
    void eachLayerHasItsOwnRopeAndWindow() {
        List<LayerGeometry> layers = LayerGeometry.of(model);
        assertThat(layers).hasSize(2);
        assertThat(layers.get(0).slidingWindow()).isEqualTo(WINDOW);
        assertThat(layers.get(1).isSliding()).isFalse();
        assertThat(layers.get(0).ropeLayout()).isEqualTo(RopeLayout.NEOX);
        double[] local = layers.get(0).invFreq();
        double[] global = layers.get(1).invFreq();
        assertThat(local).hasSize(64);
        assertThat(local[1]).isCloseTo(Math.pow(1e4, -2.0 / 128), within(1e-12));
        assertThat(global[1]).isCloseTo(Math.pow(1e6, -2.0 / 128), within(1e-12));
        assertThat(layers.get(0).sameRope(layers.get(1))).isFalse();
        // the same frequencies the forward pass rotates with
        Rope rope = new Rope(128, 128, 1e6, 1.0, null, org.jacap.simd.RopeLayout.NEOX);
        assertThat(global).containsExactly(rope.invFreq());
        // R̄ differs between the layers at the same position
        double[] x = new double[128];
        x[1] = 1;
        double[] a = new double[128];
        double[] b = new double[128];
        layers.get(0).futureRotation(60, 512).apply(x, a);
        layers.get(1).futureRotation(60, 512).apply(x, b);
        assertThat(a[1]).isNotEqualTo(b[1]);
    }

    @Test
    void droppingEntriesOutsideTheWindowChangesNothing() {
        InferenceState full = model.newState(256);
        float[] fullLogits = model.forward(full, prompt, 0, prompt.length, false);
        InferenceState st = model.newState(256);
        model.forward(st, prompt, 0, prompt.length, false);
        // a budget above every head's length: only the local layer's dead entries go
        CompressionResult r =
                KvCompressor.compress(model, st, EvictionPolicies.policy("knorm", "uniform"), Budget.kept(1000));
        KvCache c = st.kvCache();
        int firstLive = prompt.length - WINDOW + 1;
        for (int g = 0; g < c.kvHeads(); g++) {
            assertThat(c.length(0, g)).isEqualTo(WINDOW - 1);
            assertThat(c.positions(0, g)[0]).isEqualTo(firstLive);
            assertThat(c.length(1, g)).isEqualTo(prompt.length);
        }
        assertThat(r.entriesEvicted()).isEqualTo(2L * firstLive);
        int[] next = new int[1];
        float[] logits = fullLogits;
        for (int i = 0; i < 20; i++) {
            next[0] = StoriesModel.argmax(logits);
            logits = model.forward(full, next, 0, 1, false);
            float[] mine = model.forward(st, next, 0, 1, false);
            // the same rows in the same order; only the JIT state of reduceLanes may round differently
            assertThat(StoriesModel.argmax(mine)).as("step %d", i).isEqualTo(StoriesModel.argmax(logits));
            for (int v = 0; v < mine.length; v++) {
                assertThat(mine[v]).as("step %d logit %d", i, v).isCloseTo(logits[v], within(1e-3f));
            }
        }
    }

    @Test
    void theLocalLayerSpendsNoBudgetOnDeadEntries() {
        // budget above the window: the local layer is never scored, only cut to its window
        EvictionSettings wide = EvictionSettings.budget(EvictionPolicies.policy("capkv", "uniform"), 40);
        EvictionSchedule s = new EvictionSchedule(model, EvictionSchedule.newState(model, wide, 512), wide, 10_000);
        float[] logits = s.prompt(prompt, 0, prompt.length);
        KvCache c = s.state().kvCache();
        for (int g = 0; g < c.kvHeads(); g++) {
            assertThat(c.length(0, g)).isEqualTo(WINDOW - 1);
            assertThat(c.length(1, g)).isEqualTo(40);
        }
        // budget below the window: budgets apply to the global layer; the local one holds its window
        EvictionSettings tight = EvictionSettings.budget(EvictionPolicies.policy("jacap", "uniform"), 12);
        EvictionSchedule t = new EvictionSchedule(model, EvictionSchedule.newState(model, tight, 512), tight, 10_000);
        logits = t.prompt(prompt, 0, prompt.length);
        for (int i = 0; i < 100; i++) {
            logits = t.decode(StoriesModel.argmax(logits));
            KvCache tc = t.state().kvCache();
            for (int g = 0; g < tc.kvHeads(); g++) {
                assertThat(tc.length(0, g)).isEqualTo(WINDOW); // window − 1 + the token just decoded
                assertThat(tc.length(1, g)).isLessThanOrEqualTo(12 + 16);
            }
        }
        KvCache tc = t.state().kvCache();
        int next = t.state().position();
        for (int g = 0; g < tc.kvHeads(); g++) {
            int[] pos = Arrays.copyOf(tc.positions(0, g), tc.length(0, g));
            // exactly the window: the positions the next query can see but its own
            assertThat(pos[0]).isEqualTo(next - WINDOW);
            assertThat(pos).hasSize(WINDOW);
            assertThat(pos[WINDOW - 1]).isEqualTo(next - 1);
        }
    }

    @Test
    void ratiosApplyToTheGlobalLayerOnly() {
        InferenceState st = model.newState(256);
        KvCompressor.observe(
                model, st, EvictionPolicies.policy("h2o", "uniform").statistics());
        model.forward(st, prompt, 0, prompt.length, false);
        KvCompressor.compress(model, st, EvictionPolicies.policy("h2o", "uniform"), Budget.ratio(0.5));
        KvCache c = st.kvCache();
        for (int g = 0; g < c.kvHeads(); g++) {
            assertThat(c.length(0, g)).isEqualTo(WINDOW - 1); // the live window, not half the prompt
            assertThat(c.length(1, g)).isEqualTo(prompt.length / 2);
        }
    }

    @Test
    void theCacheHoldsTheWindowWhateverThePolicyAndTheObserverFollows() {
        // h2o gathers attention per entry: the forward pass's drops must keep those sums aligned
        for (String name : new String[] {"h2o", "tova", "capkv"}) {
            EvictionSettings s = EvictionSettings.budget(EvictionPolicies.policy(name, "uniform"), 20);
            EvictionSchedule e = new EvictionSchedule(model, EvictionSchedule.newState(model, s, 512), s, 10_000);
            float[] logits = e.prompt(prompt, 0, prompt.length);
            for (int i = 0; i < 80; i++) {
                logits = e.decode(StoriesModel.argmax(logits));
                KvCache c = e.state().kvCache();
                int next = e.state().position();
                for (int g = 0; g < c.kvHeads(); g++) {
                    assertThat(c.positions(0, g))
                            .as("%s step %d", name, i)
                            .containsExactly(java.util.stream.IntStream.range(next - WINDOW, next)
                                    .toArray());
                    assertThat(c.length(1, g)).isLessThanOrEqualTo(20 + s.slack());
                }
                if (e.observer() != null && e.observer().spec().needs().contains(QueryStatistic.ATTENTION_RECEIVED)) {
                    QueryStatistics q = e.observer().statistics(0);
                    // row j (position next − W + j) was seen by the queries from its own position on
                    for (int j = 0; j < WINDOW; j++) {
                        assertThat(q.attentionSeenBy(0, j))
                                .as("%s step %d row %d", name, i, j)
                                .isEqualTo(WINDOW - j);
                    }
                }
            }
        }
    }

    @Test
    void anObserverInstalledAfterThePrefillFollowsTheWindow() {
        // evaluation harnesses watch the continuation only: the observer starts with no sums
        InferenceState st = model.newState(256);
        model.forward(st, prompt, 0, prompt.length, false);
        EvictionObserver o =
                KvCompressor.observe(model, st, StatisticsSpec.of(0, 0, QueryStatistic.ATTENTION_RECEIVED));
        int[] next = {7};
        for (int i = 0; i < 5; i++) {
            model.forward(st, next, 0, 1, false);
        }
        // local layer, one query head: the 31 entries kept from the prefill were seen by the 5 queries
        // (all within the window); the newest by fewer
        QueryStatistics q = o.statistics(0);
        for (int j = 0; j < WINDOW; j++) {
            assertThat(q.attentionSeenBy(0, j)).as("row %d", j).isEqualTo(Math.min(5, WINDOW - j));
        }
    }

    @Test
    void entriesNeverObservedKeepNoSumsHoweverManyAreKept() {
        // a window of 511 kept rows reaching an observer that saw none (its arrays start at 64)
        QueryStatistics q = new QueryStatistics(
                new AttentionShape(2, 1, 8), StatisticsSpec.of(0, 0, QueryStatistic.ATTENTION_RECEIVED));
        q.observeAttention(0, new float[] {0.5f, 0.25f, 0.25f}, 0, 3);
        q.retainEntries(0, java.util.stream.IntStream.range(1, 512).toArray());
        assertThat(q.attentionReceived(0, 0)).isEqualTo(0.25);
        assertThat(q.attentionReceived(0, 1)).isEqualTo(0.25);
        assertThat(q.attentionSeenBy(0, 1)).isEqualTo(1);
        assertThat(q.attentionReceived(0, 2)).isZero();
        assertThat(q.attentionReceived(1, 400)).isZero();
    }
}

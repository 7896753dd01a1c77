package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.jacap.JacapException;
import org.jacap.kv.KvCache;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;
import org.jacap.tokenizer.Tokenizer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * When eviction runs, on the trained stories260K model (5 layers, 4 KV heads of dim 8): prompt
 * compression, chunked long prompts and budgeted decoding keep every head within budget + slack,
 * positions and keys stay as computed, and the schedule is deterministic.
 */
class EvictionScheduleTest {
    @AutoClose
    private static Model model;

    private static Tokenizer tokenizer;
    private static int[] prompt;
    private static int[] longPrompt;

    @BeforeAll
    static void load() {
        model = StoriesModel.load(StoriesModel.STORIES);
        tokenizer = StoriesModel.tokenizer(model);
        prompt = tokenizer.encode(
                "Once upon a time, there was a little girl named Lily. She loved to play outside.", true, false);
        // ~700 tokens of story text: the model's own greedy continuation, no eviction
        InferenceState st = model.newState(2048);
        int[] start = tokenizer.encode("Once upon a time", true, false);
        float[] logits = model.forward(st, start, 0, start.length, false);
        int[] text = Arrays.copyOf(start, 700);
        for (int i = start.length; i < text.length; i++) {
            text[i] = StoriesModel.argmax(logits);
            logits = model.forward(st, text, i, 1, false);
        }
        longPrompt = text;
    }

    private static EvictionSchedule schedule(EvictionSettings settings) {
        InferenceState st = EvictionSchedule.newState(model, settings, 4096);
        return new EvictionSchedule(model, st, settings, Integer.MAX_VALUE);
    }

    private static void assertWithin(KvCache cache, int capacity) {
        for (int l = 0; l < cache.layers(); l++) {
            for (int g = 0; g < cache.kvHeads(); g++) {
                assertThat(cache.length(l, g))
                        .as("length of layer %d head %d", l, g)
                        .isLessThanOrEqualTo(capacity);
                assertThat(cache.capacity(l, g))
                        .as("allocated rows of layer %d head %d", l, g)
                        .isLessThanOrEqualTo(capacity);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jacap", "h2o"})
    void budgetedDecodingStaysWithinBudgetPlusSlackAtEveryStep(String policy) {
        int budget = 128;
        int tokens = policy.equals("jacap") ? 2000 : 400; // h2o takes the serial attention path
        EvictionSettings settings = EvictionSettings.budget(EvictionPolicies.policy(policy, "uniform"), budget);
        int capacity = budget + settings.slack();
        assertThat(settings.slack()).isEqualTo(16);
        EvictionSchedule s = schedule(settings);
        KvCache cache = s.state().kvCache();
        assertThat(cache.maxCapacity()).isEqualTo(capacity);
        long bytesBound = 5L * 4 * capacity * (8 + 8 + 1) * 4; // layers x heads x rows x (k + v + position) floats
        float[] logits = s.prompt(prompt, 0, prompt.length);
        int distinct = 0;
        boolean[] seen = new boolean[model.config().vocabSize()];
        for (int i = 0; i < tokens; i++) {
            int next = StoriesModel.argmax(logits);
            if (!seen[next]) {
                seen[next] = true;
                distinct++;
            }
            logits = s.decode(next);
            assertWithin(cache, capacity);
            assertThat(cache.bytesAllocated()).isLessThanOrEqualTo(bytesBound);
        }
        assertThat(s.state().position()).isEqualTo(prompt.length + tokens);
        assertThat(s.peakHeadLength()).isEqualTo(capacity);
        assertThat(s.decodeEvents()).isGreaterThanOrEqualTo((prompt.length + tokens - capacity) / settings.slack());
        assertThat(distinct).as("a story, not a loop").isGreaterThan(40);
        for (int l = 0; l < cache.layers(); l++) {
            for (int g = 0; g < cache.kvHeads(); g++) {
                int[] pos = Arrays.copyOf(cache.positions(l, g), cache.length(l, g));
                assertThat(pos).isSorted();
                assertThat(pos[pos.length - 1])
                        .as("the newest token is at its true position")
                        .isEqualTo(prompt.length + tokens - 1);
            }
        }
    }

    @Test
    void longPromptIsEvaluatedInChunksWithinTheBudget() {
        int budget = 64;
        EvictionSettings settings = EvictionSettings.budget(EvictionPolicies.policy("capkv", "uniform"), budget);
        int capacity = budget + settings.slack();
        EvictionSchedule s = schedule(settings);
        float[] logits = s.prompt(longPrompt, 0, longPrompt.length);
        KvCache cache = s.state().kvCache();
        assertWithin(cache, capacity);
        assertThat(s.peakHeadLength()).isEqualTo(capacity);
        // the first chunk fills the cache, every later chunk is one slack: one event before each
        int expectedEvents = (longPrompt.length - capacity + settings.slack() - 1) / settings.slack() + 1;
        assertThat(s.promptEvents()).isEqualTo(expectedEvents);
        for (int l = 0; l < cache.layers(); l++) {
            for (int g = 0; g < cache.kvHeads(); g++) {
                assertThat(cache.length(l, g)).isEqualTo(budget);
            }
        }
        assertThat(s.state().position()).isEqualTo(longPrompt.length);
        assertThat(logits).hasSize(model.config().vocabSize());
        // decoding continues at the true position and stays within the budget
        for (int i = 0; i < 50; i++) {
            logits = s.decode(StoriesModel.argmax(logits));
            assertWithin(cache, capacity);
        }
        assertThat(cache.positions(0, 0)[cache.length(0, 0) - 1]).isEqualTo(longPrompt.length + 49);
    }

    @Test
    void ratioCompressesThePromptAndDecodingAppends() {
        EvictionSettings settings = EvictionSettings.ratio(EvictionPolicies.policy("jacap", "uniform"), 0.5);
        EvictionSchedule s = schedule(settings);
        float[] logits = s.prompt(prompt, 0, prompt.length);
        KvCache cache = s.state().kvCache();
        int kept = (int) (prompt.length * 0.5);
        for (int l = 0; l < cache.layers(); l++) {
            for (int g = 0; g < cache.kvHeads(); g++) {
                assertThat(cache.length(l, g)).isEqualTo(kept);
            }
        }
        assertThat(s.lastPromptCompression().entriesKept()).isEqualTo(5L * 4 * kept);
        assertThat(s.lastPromptCompression().entriesBefore()).isEqualTo(5L * 4 * prompt.length);
        for (int i = 0; i < 10; i++) {
            logits = s.decode(StoriesModel.argmax(logits));
        }
        assertThat(cache.length(3, 1)).isEqualTo(kept + 10);
        assertThat(s.decodeEvents()).isZero();
    }

    @Test
    void ratioAndBudgetTogetherKeepTheSmaller() {
        EvictionPolicy policy = EvictionPolicies.policy("knorm", "uniform");
        EvictionSettings both = new EvictionSettings(policy, 0.25, 10, 16, 256, 512);
        EvictionSchedule s = schedule(both);
        s.prompt(prompt, 0, prompt.length);
        assertThat(prompt.length)
                .as("longer than budget + slack: chunk events first")
                .isGreaterThan(26);
        assertThat(s.state().kvCache().length(0, 0)).isEqualTo(10);
        EvictionSchedule r = schedule(new EvictionSettings(policy, 0.75, 10, 16, 256, 512));
        r.prompt(prompt, 0, prompt.length);
        assertThat(r.state().kvCache().length(0, 0))
                .as("the ratio of the whole prompt")
                .isEqualTo((int) (prompt.length * 0.25));
    }

    @Test
    void perHeadPolicyKeepsDifferentEntriesPerHead() {
        EvictionSchedule ada = schedule(EvictionSettings.ratio(EvictionPolicies.policy("capkv", "ada"), 0.5));
        ada.prompt(longPrompt, 0, 300);
        KvCache cache = ada.state().kvCache();
        boolean lengthsDiffer = false;
        for (int l = 0; l < cache.layers(); l++) {
            int total = 0;
            for (int g = 0; g < cache.kvHeads(); g++) {
                total += cache.length(l, g);
                lengthsDiffer |= cache.length(l, g) != cache.length(l, 0);
            }
            assertThat(total).as("AdaKV spends the layer's total budget").isEqualTo(4 * 150);
        }
        assertThat(lengthsDiffer).as("AdaKV gives heads different lengths").isTrue();

        EvictionSchedule uniform = schedule(EvictionSettings.ratio(EvictionPolicies.policy("capkv", "uniform"), 0.5));
        uniform.prompt(longPrompt, 0, 300);
        KvCache u = uniform.state().kvCache();
        boolean positionsDiffer = false;
        for (int l = 0; l < u.layers(); l++) {
            for (int g = 1; g < u.kvHeads(); g++) {
                assertThat(u.length(l, g)).isEqualTo(150);
                positionsDiffer |= !Arrays.equals(u.positions(l, g), 0, 150, u.positions(l, 0), 0, 150);
            }
        }
        assertThat(positionsDiffer).as("heads keep different tokens").isTrue();
    }

    @Test
    void retainKeepsOriginalPositionsAndKeysAndNewTokensContinueAtTheTruePosition() {
        InferenceState full = model.newState(1024);
        float[] fullLogits = model.forward(full, longPrompt, 0, 200, false);
        InferenceState st = full.copy();
        KvCompressor.observe(
                model, st, EvictionPolicies.policy("jacap", "uniform").statistics());
        // re-run the prompt on an observed state (the copy above only carries the cache)
        st.reset();
        model.forward(st, longPrompt, 0, 200, false);
        CompressionResult r =
                KvCompressor.compress(model, st, EvictionPolicies.policy("jacap", "uniform"), Budget.ratio(0.75));
        assertThat(r.entriesBefore()).isEqualTo(5L * 4 * 200);
        assertThat(r.entriesKept()).isEqualTo(5L * 4 * 50);
        assertThat(r.bytesInUse()).isEqualTo(st.kvCache().bytesInUse());
        KvCache c = st.kvCache();
        KvCache f = full.kvCache();
        for (int l = 0; l < c.layers(); l++) {
            for (int g = 0; g < c.kvHeads(); g++) {
                int[] pos = Arrays.copyOf(c.positions(l, g), c.length(l, g));
                assertThat(pos).isSorted().doesNotHaveDuplicates();
                for (int j = 0; j < pos.length; j++) {
                    int p = pos[j];
                    assertThat(Arrays.copyOfRange(c.keys(l, g), j * 8, j * 8 + 8))
                            .as("key of position %d is the one computed there, never re-rotated", p)
                            .containsExactly(Arrays.copyOfRange(f.keys(l, g), p * 8, p * 8 + 8));
                    assertThat(Arrays.copyOfRange(c.values(l, g), j * 8, j * 8 + 8))
                            .containsExactly(Arrays.copyOfRange(f.values(l, g), p * 8, p * 8 + 8));
                }
            }
        }
        assertThat(st.position()).isEqualTo(200);
        int next = StoriesModel.argmax(fullLogits);
        model.forward(st, new int[] {next}, 0, 1, false);
        model.forward(full, new int[] {next}, 0, 1, false);
        for (int g = 0; g < c.kvHeads(); g++) {
            int n = c.length(0, g);
            assertThat(c.positions(0, g)[n - 1]).isEqualTo(200);
            // layer 0's key depends only on the token and its position: the RoPE angle is the true one
            // (a tolerance only for JIT-dependent rounding; a wrong angle moves it by O(1))
            float[] mine = Arrays.copyOfRange(c.keys(0, g), (n - 1) * 8, n * 8);
            float[] ref = Arrays.copyOfRange(f.keys(0, g), 200 * 8, 201 * 8);
            for (int a = 0; a < 8; a++) {
                assertThat(mine[a]).isCloseTo(ref[a], within(1e-4f));
            }
        }
    }

    @Test
    void deterministicForASeed() {
        int[][] runs = new int[2][];
        int[][] kept = new int[2][];
        for (int run = 0; run < 2; run++) {
            EvictionSchedule s =
                    schedule(EvictionSettings.budget(EvictionPolicies.policy("random:seed=7", "uniform"), 32));
            runs[run] = StoriesModel.greedy(s, prompt, 120);
            kept[run] = Arrays.copyOf(
                    s.state().kvCache().positions(2, 3), s.state().kvCache().length(2, 3));
        }
        assertThat(runs[1]).containsExactly(runs[0]);
        assertThat(kept[1]).containsExactly(kept[0]);
    }

    @Test
    void fullBudgetGivesTheUncompressedIds() {
        InferenceState full = model.newState(1024);
        float[] logits = model.forward(full, prompt, 0, prompt.length, false);
        int[] expected = new int[60];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = StoriesModel.argmax(logits);
            logits = model.forward(full, expected, i, 1, false);
        }
        EvictionSchedule ratio0 = schedule(EvictionSettings.ratio(EvictionPolicies.policy("capkv", "uniform"), 0));
        assertThat(StoriesModel.greedy(ratio0, prompt, 60)).containsExactly(expected);
        EvictionSchedule large = schedule(EvictionSettings.budget(EvictionPolicies.policy("capkv", "uniform"), 512));
        assertThat(StoriesModel.greedy(large, prompt, 60)).containsExactly(expected);
        assertThat(large.entriesEvicted()).isZero();
    }

    @Test
    void positionLimitIsAClearError() {
        EvictionSettings settings = EvictionSettings.budget(EvictionPolicies.policy("knorm", "uniform"), 16);
        InferenceState st = EvictionSchedule.newState(model, settings, 64);
        EvictionSchedule s = new EvictionSchedule(model, st, settings, 40);
        s.prompt(prompt, 0, prompt.length);
        int[] more = new int[40];
        assertThatThrownBy(() -> s.decode(more, 0, 40, false))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("context full")
                .hasMessageContaining("40 positions");
        assertThatThrownBy(() -> new EvictionSchedule(model, model.newState(8), settings, 100))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("EvictionSchedule.newState");
    }

    @Test
    void policyNeedingStatisticsWithoutObserverIsAClearError() {
        InferenceState st = model.newState(256);
        model.forward(st, prompt, 0, prompt.length, false);
        assertThatThrownBy(() -> KvCompressor.compress(
                        model, st, EvictionPolicies.policy("capkv", "uniform"), Budget.ratio(0.5)))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("install an eviction observer");
        // knorm needs none
        CompressionResult r =
                KvCompressor.compress(model, st, EvictionPolicies.policy("knorm", "uniform"), Budget.kept(4));
        assertThat(r.entriesKept()).isEqualTo(5L * 4 * 4);
    }
}

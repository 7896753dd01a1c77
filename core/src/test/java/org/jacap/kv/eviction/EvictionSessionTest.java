package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.jacap.JacapException;
import org.jacap.engine.ComputePrecision;
import org.jacap.engine.Engine;
import org.jacap.engine.EngineOptions;
import org.jacap.engine.EvictionMode;
import org.jacap.engine.FinishReason;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.KvCacheStats;
import org.jacap.engine.Session;
import org.jacap.engine.SessionOptions;
import org.jacap.engine.TokenListener;
import org.jacap.sampling.SamplerConfig;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Eviction through the Engine/Session API, as {@code jacap run --kv-policy} uses it, on the trained
 * stories260K model: every policy keeps the story fluent, no policy reproduces the reference ids,
 * a budget bounds the cache without making overflow an error.
 */
class EvictionSessionTest {
    /** Words TinyStories text is made of; garbage from a broken cache hits few of them. */
    private static final Set<String> COMMON = Set.of(
            "a", "and", "the", "was", "to", "she", "he", "they", "it", "her", "his", "said", "with", "in", "of", "one",
            "day", "upon", "time", "there", "little", "big", "play", "saw", "had", "wanted", "very", "happy", "girl",
            "boy", "named", "mom", "loved", "is", "you", "i", "not", "were", "so", "that", "on", "at", "for", "but",
            "be", "can", "go", "went", "see", "friends", "friend", "too", "what", "do", "we", "them", "fun", "lily",
            "tom", "ben", "park", "ball", "toy", "toys", "tree", "dog", "cat", "bird", "felt", "sad", "help", "let's",
            "are", "all", "up", "out", "once", "then", "back");

    @AutoClose
    private static Engine engine;

    @BeforeAll
    static void load() throws IOException {
        engine = Engine.load(Fixtures.anyModel(StoriesModel.STORIES), new EngineOptions(1, ComputePrecision.F32, null));
    }

    static Stream<String> policies() {
        return EvictionPolicies.SCORERS.stream().filter(p -> !p.equals("none"));
    }

    private static GenerationResult generate(EvictionMode policy, String prompt, int tokens) {
        try (Session s = engine.newSession(SessionOptions.defaults().withEviction(policy))) {
            return s.generate(
                    prompt,
                    GenerationOptions.defaults().withMaxTokens(tokens).withSampler(SamplerConfig.greedy()),
                    TokenListener.none());
        }
    }

    /** Fluent: enough distinct tokens, no long single-token run, ASCII words, mostly common English words. */
    private static void assertFluent(GenerationResult r, String what) {
        int[] ids = r.ids();
        assertThat(Arrays.stream(ids).distinct().count())
                .as(what + " distinct tokens")
                .isGreaterThanOrEqualTo(20);
        int run = 1;
        for (int i = 1; i < ids.length; i++) {
            run = ids[i] == ids[i - 1] ? run + 1 : 1;
            assertThat(run).as(what + " repeats one token").isLessThan(5);
        }
        String text = r.text();
        assertThat(text.chars().allMatch(c -> c == '\n' || (c >= 32 && c < 127)))
                .as(what + " is ASCII: " + text)
                .isTrue();
        String[] words = text.toLowerCase(Locale.ROOT).split("[^a-z']+");
        List<String> real = Arrays.stream(words).filter(w -> !w.isEmpty()).toList();
        assertThat(real.size()).as(what + " words").isGreaterThanOrEqualTo(20);
        long common = real.stream().filter(COMMON::contains).count();
        assertThat(common / (double) real.size())
                .as(what + " common-word share of: " + text)
                .isGreaterThan(0.4);
        assertThat(real.stream().mapToInt(String::length).max().orElse(0))
                .as(what + " no run-on words")
                .isLessThan(15);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void everyPolicyKeepsTheStoryFluent(String name) {
        EvictionPolicy policy = EvictionPolicies.policy(name, "uniform");
        GenerationResult ratio = generate(
                EvictionMode.evict(EvictionSettings.ratio(policy, 0.5)),
                "Once upon a time, there was a little girl named Lily. She loved to play outside",
                64);
        assertThat(ratio.generatedTokens()).isEqualTo(64);
        assertFluent(ratio, name + " ratio 0.5");
        GenerationResult budget =
                generate(EvictionMode.evict(EvictionSettings.budget(policy, 32)), "Once upon a time", 160);
        assertFluent(budget, name + " budget 32");
    }

    @Test
    void withoutEvictionAndWithAFullBudgetTheIdsAreTheReference() throws IOException {
        Path ref = Fixtures.dir().resolve("reference/reference_generations.json");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(ref), "missing " + ref);
        JsonNode cases = new ObjectMapper().readTree(ref.toFile()).get("models").get(StoriesModel.STORIES);
        List<EvictionMode> policies = new ArrayList<>(List.of(
                EvictionMode.NONE,
                EvictionMode.evict(EvictionSettings.ratio(EvictionPolicies.policy("jacap", "uniform"), 0)),
                EvictionMode.evict(EvictionSettings.budget(EvictionPolicies.policy("capkv", "uniform"), 256))));
        for (JsonNode c : cases) {
            int[] expected = new int[c.get("greedy_ids").size()];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = c.get("greedy_ids").get(i).asInt();
            }
            for (EvictionMode p : policies) {
                GenerationResult r = generate(p, c.get("prompt").asText(), expected.length);
                assertThat(Arrays.copyOf(r.ids(), expected.length))
                        .as(p.name() + " on \"" + c.get("prompt").asText() + "\"")
                        .containsExactly(expected);
            }
        }
    }

    @Test
    void sampledGenerationWithEvictionIsDeterministicForASeed() {
        EvictionMode policy =
                EvictionMode.evict(EvictionSettings.budget(EvictionPolicies.policy("random:seed=3", "ada"), 24));
        String[] texts = new String[2];
        for (int run = 0; run < 2; run++) {
            try (Session s = engine.newSession(SessionOptions.defaults().withEviction(policy))) {
                texts[run] = s.generate(
                                "Once upon a time",
                                GenerationOptions.defaults()
                                        .withMaxTokens(120)
                                        .withSampler(SamplerConfig.defaults().withSeed(42)),
                                TokenListener.none())
                        .text();
            }
        }
        assertThat(texts[1]).isEqualTo(texts[0]);
    }

    @Test
    void aBudgetBoundsTheCacheAndOverflowIsNoError() {
        EvictionSettings settings = EvictionSettings.budget(EvictionPolicies.policy("jacap", "uniform"), 16);
        try (Session s = engine.newSession(
                SessionOptions.defaults().withContextLength(0).withEviction(EvictionMode.evict(settings)))) {
            GenerationResult r = s.generate(
                    "Once upon a time",
                    GenerationOptions.defaults().withMaxTokens(300).withSampler(SamplerConfig.greedy()),
                    TokenListener.none());
            assertThat(r.generatedTokens()).isEqualTo(300);
            KvCacheStats kv = s.kvCacheStats();
            assertThat(kv.peakHeadLength()).isEqualTo(32);
            assertThat(kv.entries()).isLessThanOrEqualTo(5L * 4 * 32);
            assertThat(kv.bytesAllocated()).isLessThanOrEqualTo(5L * 4 * 32 * (8 + 8 + 1) * 4);
            assertThat(kv.decodeEvents()).isGreaterThan(10);
            assertThat(kv.policy()).startsWith("jacap:").contains("budget 16 + slack 16");
            assertThat(kv.evictionNanos()).isPositive();
            // a chat turn on top continues at the true position
            s.generate(
                    " The end.",
                    GenerationOptions.defaults().withMaxTokens(5).withSampler(SamplerConfig.greedy()),
                    TokenListener.none());
            assertThat(s.cachedTokens()).isGreaterThan(300);
        }
        // an explicit context still limits positions: the reply stops there
        try (Session s = engine.newSession(
                SessionOptions.defaults().withContextLength(100).withEviction(EvictionMode.evict(settings)))) {
            GenerationResult r = s.generate(
                    "Once upon a time",
                    GenerationOptions.defaults().withMaxTokens(200).withSampler(SamplerConfig.greedy()),
                    TokenListener.none());
            assertThat(r.finishReason()).isEqualTo(FinishReason.CONTEXT_FULL);
            assertThat(s.tokens()).hasSize(100);
        }
        // without a policy, a prompt beyond the context stays an error
        try (Session s = engine.newSession(SessionOptions.defaults().withContextLength(4))) {
            assertThatThrownBy(() -> s.generate(
                            "Once upon a time", GenerationOptions.defaults().withMaxTokens(200), TokenListener.none()))
                    .isInstanceOf(JacapException.class)
                    .hasMessageContaining("context overflow");
        }
    }

    @Test
    void resetForgetsTheStatistics() {
        EvictionMode policy =
                EvictionMode.evict(EvictionSettings.ratio(EvictionPolicies.policy("h2o", "uniform"), 0.5));
        try (Session s = engine.newSession(SessionOptions.defaults().withEviction(policy))) {
            GenerationOptions o = GenerationOptions.defaults().withMaxTokens(20).withSampler(SamplerConfig.greedy());
            String first =
                    s.generate("Once upon a time", o, TokenListener.none()).text();
            s.reset();
            assertThat(s.generate("Once upon a time", o, TokenListener.none()).text())
                    .isEqualTo(first);
        }
    }
}

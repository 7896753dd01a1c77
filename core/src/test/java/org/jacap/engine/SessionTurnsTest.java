package org.jacap.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.jacap.JacapException;
import org.jacap.kv.eviction.EvictionPolicies;
import org.jacap.kv.eviction.EvictionSettings;
import org.jacap.sampling.SamplerConfig;
import org.jacap.testing.Fixtures;
import org.jacap.tokenizer.ChatMessage;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Taking back the last chat turn, saving and restoring a session, and the context check (stories260K). */
class SessionTurnsTest {
    private static final GenerationOptions SEEDED = GenerationOptions.defaults()
            .withMaxTokens(20)
            .withSampler(SamplerConfig.defaults().withTemperature(1f).withSeed(7));

    @AutoClose
    private static Engine engine;

    @TempDir
    Path dir;

    @BeforeAll
    static void load() throws IOException {
        engine = Engine.load(
                Fixtures.model("stories260K.gguf"), EngineOptions.defaults().withThreads(2));
    }

    private static Session chatSession() {
        return engine.newSession(SessionOptions.defaults().withSystemPrompt("Tell a story."));
    }

    @Test
    void regenerateWithTheSameSeedRepeatsTheReplyAndEvaluatesOnlyTheUserMessage() {
        try (Session s = chatSession()) {
            s.chat("Hi", SEEDED, TokenListener.none());
            int heldBefore = s.tokens().length; // the first reply's last token is not evaluated yet
            GenerationResult second = s.chat("And then?", SEEDED, TokenListener.none());
            int[] tokensAfter = s.tokens();

            GenerationResult again = s.regenerate(SEEDED, TokenListener.none());
            assertThat(again.ids()).containsExactly(second.ids());
            assertThat(again.text()).isEqualTo(second.text());
            // the first turn stayed cached, now with its last token: one fewer to evaluate
            assertThat(again.reusedTokens()).isEqualTo(heldBefore);
            assertThat(again.promptTokens()).isEqualTo(second.promptTokens() - 1);
            assertThat(s.tokens()).containsExactly(tokensAfter);
            assertThat(s.history())
                    .extracting(ChatMessage::role)
                    .containsExactly("system", "user", "assistant", "user", "assistant");

            GenerationResult other =
                    s.regenerate(SEEDED.withSampler(SEEDED.sampler().withSeed(8)), TokenListener.none());
            assertThat(other.text()).isNotEqualTo(second.text());
            assertThat(s.history().get(4).content()).isEqualTo(other.text());
        }
    }

    @Test
    void editingTheLastTurnEqualsAskingTheNewMessageInTheFirstPlace() {
        GenerationResult expected;
        int[] expectedTokens;
        try (Session fresh = chatSession()) {
            fresh.chat("Hi", SEEDED, TokenListener.none());
            expected = fresh.chat("Tell me about a cat", SEEDED, TokenListener.none());
            expectedTokens = fresh.tokens();
        }
        try (Session s = chatSession()) {
            s.chat("Hi", SEEDED, TokenListener.none());
            s.chat("Tell me about a dog", SEEDED, TokenListener.none());
            GenerationResult edited = s.editLastTurn("Tell me about a cat", SEEDED, TokenListener.none());
            assertThat(edited.ids()).containsExactly(expected.ids());
            assertThat(s.tokens()).containsExactly(expectedTokens);
            assertThat(s.history().get(3)).isEqualTo(ChatMessage.user("Tell me about a cat"));
        }
    }

    @Test
    void onlyAChatTurnCanBeTakenBack() {
        try (Session s = chatSession()) {
            assertThatThrownBy(() -> s.regenerate(SEEDED, TokenListener.none()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("there is no chat turn to take back");
            s.chat("Hi", SEEDED, TokenListener.none());
            s.regenerate(SEEDED, TokenListener.none());
            s.reset();
            assertThatThrownBy(() -> s.editLastTurn("x", SEEDED, TokenListener.none()))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aRestoredSessionContinuesBitForBit() throws IOException {
        Path file = dir.resolve("chat.session");
        GenerationResult expected;
        int[] expectedTokens;
        try (Session s = chatSession()) {
            s.chat("Hi", SEEDED, TokenListener.none());
            s.save(file);
            expected = s.chat("And then?", SEEDED, TokenListener.none());
            expectedTokens = s.tokens();
        }
        try (Session s = engine.newSession()) {
            s.restore(file);
            assertThat(s.history()).extracting(ChatMessage::role).containsExactly("system", "user", "assistant");
            GenerationResult continued = s.chat("And then?", SEEDED, TokenListener.none());
            assertThat(continued.reusedTokens()).isEqualTo(expected.reusedTokens()); // nothing re-evaluated
            assertThat(continued.ids()).containsExactly(expected.ids());
            assertThat(s.tokens()).containsExactly(expectedTokens);
            s.regenerate(SEEDED, TokenListener.none()); // the turn mark travels too
        }
    }

    @Test
    void badSessionFilesAreOneClearError() throws IOException {
        Path garbage = Files.writeString(dir.resolve("garbage"), "not a session at all");
        Path file = dir.resolve("chat.session");
        try (Session s = chatSession()) {
            s.chat("Hi", SEEDED, TokenListener.none());
            s.save(file);
            assertThatThrownBy(() -> s.restore(garbage))
                    .isInstanceOf(JacapException.class)
                    .hasMessage("not a jacap session file: " + garbage);
            assertThat(s.tokens()).isEmpty(); // a failed restore leaves the session empty
        }
        byte[] bytes = Files.readAllBytes(file);
        Path cut = Files.write(dir.resolve("cut"), Arrays.copyOf(bytes, bytes.length - 10));
        try (Session s = engine.newSession()) {
            assertThatThrownBy(() -> s.restore(cut))
                    .isInstanceOf(JacapException.class)
                    .hasMessage("session file " + cut + " is truncated");
        }
        try (Session s = engine.newSession(SessionOptions.defaults().withContextLength(8))) {
            assertThatThrownBy(() -> s.restore(file))
                    .isInstanceOf(JacapException.class)
                    .hasMessageEndingWith("more than this session's context of 8");
        }
        try (Engine other = Engine.load(
                        Fixtures.model("stories260K-Q8_0.gguf"),
                        EngineOptions.defaults().withThreads(1));
                Session s = other.newSession()) {
            assertThatThrownBy(() -> s.restore(file))
                    .isInstanceOf(JacapException.class)
                    .hasMessageStartingWith("session file " + file + " was saved with 'stories260K.gguf' (llama, ")
                    .hasMessageContaining(", not 'stories260K-Q8_0.gguf'");
        }
    }

    @Test
    void anEvictingSessionCannotBeSaved() {
        EvictionMode evict =
                EvictionMode.evict(EvictionSettings.budget(EvictionPolicies.policy("streaming", "uniform"), 32));
        try (Session s = engine.newSession(SessionOptions.defaults().withEviction(evict))) {
            s.chat("Hi", SEEDED, TokenListener.none());
            assertThatThrownBy(() -> s.save(dir.resolve("x")))
                    .isInstanceOf(JacapException.class)
                    .hasMessageStartingWith("a session with a KV eviction policy cannot be saved");
            // taking a turn back still works: the kept tokens are evaluated again
            GenerationResult again = s.regenerate(SEEDED, TokenListener.none());
            assertThat(again.reusedTokens()).isZero();
            assertThat(s.history()).extracting(ChatMessage::role).containsExactly("user", "assistant");
        }
    }

    @Test
    void aReplyLongerThanTheContextStopsWhereTheContextEnds() {
        try (Session s = engine.newSession(SessionOptions.defaults().withContextLength(32))) {
            GenerationResult r = s.generate(
                    "Once upon a time",
                    GenerationOptions.defaults().withMaxTokens(64).withSampler(SamplerConfig.greedy()),
                    TokenListener.none());
            assertThat(r.finishReason()).isEqualTo(FinishReason.CONTEXT_FULL);
            assertThat(s.tokens()).hasSize(32);
            assertThat(r.generatedTokens()).isEqualTo(32 - 5); // BOS + 4 prompt tokens
            assertThatThrownBy(() -> s.generate(" more", GenerationOptions.defaults(), TokenListener.none()))
                    .isInstanceOf(JacapException.class)
                    .hasMessageStartingWith("context overflow: ")
                    .hasMessageEndingWith(" + 1 to reply > context of 32 tokens");
        }
    }
}

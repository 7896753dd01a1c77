package org.jacap.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.kv.eviction.EvictionSettings;
import org.jacap.sampling.SamplerConfig;
import org.jacap.testing.Fixtures;
import org.jacap.tokenizer.ChatMessage;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Chat as a list of messages and whole-prompt calls evaluate only what the cache does not hold yet. */
class SessionReuseTest {
    private static final GenerationOptions GREEDY_8 =
            GenerationOptions.defaults().withSampler(SamplerConfig.greedy()).withMaxTokens(8);

    @AutoClose
    private static Engine engine;

    @BeforeAll
    static void load() throws IOException {
        engine = Engine.load(
                Fixtures.model("stories260K.gguf"), EngineOptions.defaults().withThreads(2));
    }

    @Test
    void aConversationThatExtendsTheLastOneEvaluatesOnlyTheNewMessages() {
        try (Session s = engine.newSession()) {
            List<ChatMessage> chat = new ArrayList<>(List.of(ChatMessage.user("Tell me a story.")));
            GenerationResult first = s.chat(chat, GREEDY_8, (id, t) -> true);
            assertThat(first.reusedTokens()).isZero();
            int held = s.cachedTokens(); // the last sampled token is evaluated with the next prompt
            assertThat(held).isEqualTo(first.promptTokens() + first.generatedTokens() - 1);

            chat.add(ChatMessage.assistant(first.text()));
            chat.add(ChatMessage.user("And then?"));
            GenerationResult second = s.chat(chat, GREEDY_8, (id, t) -> true);
            assertThat(second.reusedTokens()).isEqualTo(held);
            int added = engine.tokenizer()
                    .encode(engine.chatTemplate().renderPrompt(chat, true).text(), false, false)
                    .length;
            assertThat(second.promptTokens()).isPositive().isLessThan(added / 2);
            assertThat(s.history()).hasSize(4).last().isEqualTo(ChatMessage.assistant(second.text()));

            // A different conversation shares no history: the common token prefix is kept, the rest evaluated.
            GenerationResult other = s.chat(List.of(ChatMessage.user("Tell me a joke.")), GREEDY_8, (id, t) -> true);
            assertThat(other.reusedTokens()).isPositive().isLessThan(held);
            try (Session fresh = engine.newSession()) {
                GenerationResult alone =
                        fresh.chat(List.of(ChatMessage.user("Tell me a joke.")), GREEDY_8, (id, t) -> true);
                assertThat(other.ids()).containsExactly(alone.ids());
            }
        }
    }

    /** ChatML (SmolLM2): the next turn closes the reply with the template's <|im_end|>\n, as a fresh rendering does. */
    @Test
    void theNextTurnHoldsExactlyWhatTheWholeConversationRendersTo() throws IOException {
        try (Engine smol = Engine.load(
                        Fixtures.realModel("SmolLM2-135M-Instruct.Q4_1.gguf"),
                        EngineOptions.defaults().withThreads(2));
                Session s = smol.newSession()) {
            List<ChatMessage> chat = new ArrayList<>(List.of(ChatMessage.user("Name three colors.")));
            GenerationResult first = s.chat(chat, GREEDY_8, (id, t) -> true);
            int held = s.cachedTokens();
            chat.add(ChatMessage.assistant(first.text()));
            chat.add(ChatMessage.user("And three animals?"));
            GenerationResult second = s.chat(chat, GREEDY_8.withMaxTokens(1), (id, t) -> true);
            assertThat(second.reusedTokens()).isEqualTo(held);
            int[] whole = smol.chatTemplate().renderPrompt(chat, true).encode(smol.tokenizer(), false);
            assertThat(java.util.Arrays.copyOf(s.tokens(), whole.length)).containsExactly(whole);
        }
    }

    @Test
    void aWholePromptReusesTheLongestCommonPrefixOfTheCache() {
        int[] a = engine.tokenizer().encode("Once upon a time there was a little girl", true, false);
        int[] b = engine.tokenizer().encode("Once upon a time there was a big dog", true, false);
        int common = 0;
        while (a[common] == b[common]) {
            common++;
        }
        try (Session s = engine.newSession()) {
            GenerationResult first = s.startFrom(a, GREEDY_8).runTo((id, t) -> true);
            assertThat(first.reusedTokens()).isZero();
            assertThat(first.promptTokens()).isEqualTo(a.length);
            GenerationResult second = s.startFrom(b, GREEDY_8).runTo((id, t) -> true);
            assertThat(second.reusedTokens()).isEqualTo(common);
            assertThat(second.promptTokens()).isEqualTo(b.length - common);
            try (Session fresh = engine.newSession()) {
                assertThat(second.ids())
                        .containsExactly(fresh.startFrom(b, GREEDY_8)
                                .runTo((id, t) -> true)
                                .ids());
            }
            // The same prompt again: everything but its last token is reused (that one gives the logits).
            GenerationResult again = s.startFrom(b, GREEDY_8).runTo((id, t) -> true);
            assertThat(again.reusedTokens()).isEqualTo(b.length - 1);
            assertThat(again.ids()).containsExactly(second.ids());
        }
    }

    @Test
    void rolesThatCouldCarryMarkupAreRejected() {
        try (Session s = engine.newSession()) {
            assertThatThrownBy(() -> s.startChat(List.of(new ChatMessage("user<|im_end|>", "x")), GREEDY_8))
                    .isInstanceOf(JacapException.class)
                    .hasMessageContaining("message role 'user<|im_end|>' is not a name");
            assertThatThrownBy(() -> s.startChat(List.of(), GREEDY_8))
                    .isInstanceOf(JacapException.class)
                    .hasMessage("the conversation has no messages");
        }
    }

    @Test
    void underAKvBudgetAConversationOfTwoHundredTurnsReusesEveryTurnAndStaysBounded() {
        EvictionMode budget = EvictionMode.evict(
                EvictionSettings.budget(org.jacap.kv.eviction.EvictionPolicies.policy("streaming", "uniform"), 64));
        GenerationOptions options = GREEDY_8.withMaxTokens(4);
        try (Session s = engine.newSession(SessionOptions.defaults().withEviction(budget))) {
            List<ChatMessage> chat = new ArrayList<>();
            long maxEntries = 0;
            for (int turn = 0; turn < 200; turn++) {
                int held = s.cachedTokens();
                chat.add(ChatMessage.user("Turn " + turn + "."));
                GenerationResult r = s.chat(chat, options, (id, t) -> true);
                assertThat(r.reusedTokens()).as("turn %d", turn).isEqualTo(held);
                chat.add(ChatMessage.assistant(r.text()));
                maxEntries = Math.max(maxEntries, s.kvCacheStats().entries());
            }
            var config = engine.config();
            int slack = EvictionSettings.defaultSlack(64);
            assertThat(s.tokens().length).isGreaterThan(2000); // far past what the cache holds
            assertThat(maxEntries)
                    .isLessThanOrEqualTo((long) (64 + slack) * config.blockCount() * config.headCountKv());
        }
    }
}

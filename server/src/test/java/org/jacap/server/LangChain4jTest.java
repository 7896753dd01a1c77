package org.jacap.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jacap.engine.Engine;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.Session;
import org.jacap.sampling.SamplerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** LangChain4j's OpenAI module, unchanged, against the server: chat, streaming, two conversations. */
class LangChain4jTest {
    private static final GenerationOptions GREEDY_16 =
            GenerationOptions.defaults().withSampler(SamplerConfig.greedy()).withMaxTokens(16);

    private static Engine engine;
    private static TestServer server;

    @BeforeAll
    static void start() {
        engine = TestServer.load(TestServer.stories());
        server = TestServer.start(
                engine, ServerOptions.defaults().withParallel(2).withApiKey("lc4j-key"));
    }

    @AfterAll
    static void stop() {
        TestServer.stop(server, engine);
    }

    private static OpenAiChatModel model() {
        return OpenAiChatModel.builder()
                .baseUrl(server.base + "/v1")
                .apiKey("lc4j-key")
                .modelName("stories260K")
                .temperature(0.0)
                .maxTokens(16)
                .timeout(Duration.ofSeconds(60))
                .build();
    }

    /** The library's answer in a session that went through the same turns. */
    private static List<String> libraryAnswers(List<String> userTurns) {
        List<String> answers = new ArrayList<>();
        try (Session s = engine.newSession()) {
            List<org.jacap.tokenizer.ChatMessage> chat = new ArrayList<>();
            for (String u : userTurns) {
                chat.add(org.jacap.tokenizer.ChatMessage.user(u));
                String a = s.chat(chat, GREEDY_16, (id, t) -> true).text();
                chat.add(org.jacap.tokenizer.ChatMessage.assistant(a));
                answers.add(a);
            }
        }
        return answers;
    }

    @Test
    void chatAnswersAsTheLibraryDoes() {
        String answer = model().chat("Tell me about a fox.");
        assertThat(answer)
                .isNotEmpty()
                .isEqualTo(libraryAnswers(List.of("Tell me about a fox.")).getFirst());
    }

    @Test
    void streamingDeliversTheSameTextInPieces() throws Exception {
        OpenAiStreamingChatModel streaming = OpenAiStreamingChatModel.builder()
                .baseUrl(server.base + "/v1")
                .apiKey("lc4j-key")
                .modelName("stories260K")
                .temperature(0.0)
                .maxTokens(16)
                .timeout(Duration.ofSeconds(60))
                .build();
        List<String> pieces = new ArrayList<>();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        streaming.chat("Tell me about an owl.", new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partial) {
                pieces.add(partial);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        ChatResponse response = done.get(60, TimeUnit.SECONDS);
        String want = libraryAnswers(List.of("Tell me about an owl.")).getFirst();
        assertThat(pieces.size()).isGreaterThan(1);
        assertThat(String.join("", pieces)).isEqualTo(want);
        assertThat(response.aiMessage().text()).isEqualTo(want);
        assertThat(response.tokenUsage().outputTokenCount()).isEqualTo(16);
    }

    @Test
    void twoInterleavedConversationsKeepTheirOwnSlotsAndCaches() {
        OpenAiChatModel model = model();
        List<String> turnsA = List.of("Tell me about a frog.", "What did it eat?", "Where did it live?");
        List<String> turnsB = List.of("Tell me about a king.", "Was he kind?", "Did he have a dog?");
        List<ChatMessage> a = new ArrayList<>();
        List<ChatMessage> b = new ArrayList<>();
        List<String> answersA = new ArrayList<>();
        List<String> answersB = new ArrayList<>();
        for (int turn = 0; turn < 3; turn++) {
            a.add(UserMessage.from(turnsA.get(turn)));
            ChatResponse ra = model.chat(a);
            a.add(ra.aiMessage());
            answersA.add(ra.aiMessage().text());
            b.add(UserMessage.from(turnsB.get(turn)));
            ChatResponse rb = model.chat(b);
            b.add(AiMessage.from(rb.aiMessage().text()));
            answersB.add(rb.aiMessage().text());
            if (turn > 0) { // the earlier turns were found in the conversation's slot: only the new ones evaluated
                for (ChatResponse r : List.of(ra, rb)) {
                    OpenAiTokenUsage usage = (OpenAiTokenUsage) r.tokenUsage();
                    int cached = usage.inputTokensDetails().cachedTokens();
                    assertThat(cached).as("turn %d", turn).isPositive();
                    assertThat(usage.inputTokenCount() - cached)
                            .as("turn %d", turn)
                            .isLessThan(40); // one short turn of this 512-token vocabulary
                }
            }
        }
        assertThat(answersA).isEqualTo(libraryAnswers(turnsA));
        assertThat(answersB).isEqualTo(libraryAnswers(turnsB));
    }
}

package org.jacap.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jacap.engine.Engine;
import org.jacap.engine.EngineOptions;
import org.jacap.engine.FinishReason;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.SessionOptions;
import org.jacap.sampling.SamplerConfig;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** The chat window's model, headless: streaming, Stop, and the KV figure (stories260K). */
class ChatModelTest {

    private static Path stories() {
        return Fixtures.model("stories260K.gguf");
    }

    /** Collects one reply; optionally presses Stop at the first piece of text. */
    private static final class Reply implements ChatModel.Listener {
        final StringBuilder text = new StringBuilder();
        final CompletableFuture<GenerationResult> done = new CompletableFuture<>();
        final ChatModel stopAtFirstPiece;

        Reply(ChatModel stopAtFirstPiece) {
            this.stopAtFirstPiece = stopAtFirstPiece;
        }

        @Override
        public void text(String piece) {
            text.append(piece);
            if (stopAtFirstPiece != null) {
                stopAtFirstPiece.stop();
            }
        }

        @Override
        public void finished(GenerationResult result) {
            done.complete(result);
        }

        @Override
        public void failed(String message) {
            done.completeExceptionally(new AssertionError(message));
        }

        GenerationResult await() throws Exception {
            return done.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void repliesStreamStopKeepsTheConversationAndTheKvFigureGrows() throws Exception {
        GenerationOptions options =
                GenerationOptions.defaults().withMaxTokens(200).withSampler(SamplerConfig.greedy());
        try (Engine engine = Engine.load(stories(), EngineOptions.defaults().withThreads(2));
                ChatModel model = new ChatModel(engine, SessionOptions.defaults(), options)) {
            assertThat(model.kvCache().bytesInUse()).isZero();

            Reply stopped = new Reply(model);
            model.send("Hello", stopped);
            GenerationResult first = stopped.await();
            assertThat(first.finishReason()).isEqualTo(FinishReason.CANCELLED);
            assertThat(first.text()).isEqualTo(stopped.text.toString()).isNotEmpty();
            long afterFirst = model.kvCache().bytesInUse();
            assertThat(afterFirst).isPositive();

            Reply second = new Reply(null);
            model.send("Tell me a story", second);
            GenerationResult r = second.await();
            assertThat(r.finishReason()).isIn(FinishReason.EOS, FinishReason.MAX_TOKENS);
            assertThat(second.text.toString()).isEqualTo(r.text());
            assertThat(r.reusedTokens()).isPositive(); // the stopped turn stayed in the cache
            assertThat(model.messages()).isEqualTo(4);
            assertThat(model.kvCache().bytesInUse()).isGreaterThan(afterFirst);
            assertThat(ChatWindow.describe(model.kvCache()))
                    .matches("KV cache: \\d+\\.\\d\\d MiB in use of \\d+\\.\\d\\d MiB allocated, \\d+ entries");
        }
    }
}

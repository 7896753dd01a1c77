package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.jacap.engine.Engine;
import org.jacap.engine.EngineOptions;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.Session;
import org.jacap.engine.SessionOptions;
import org.jacap.sampling.SamplerConfig;
import org.jacap.tokenizer.ChatMessage;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chat loop's behaviour, driven directly with scripted lines (stories260K). */
class ChatLoopTest {
    private static final GenerationOptions OPTIONS = GenerationOptions.defaults()
            .withMaxTokens(24)
            .withSampler(SamplerConfig.defaults().withTemperature(0.8f).withSeed(3));
    private static final String TIMING =
            "\\[\\d+ tokens, \\d+\\.\\d tokens/s \\| prompt \\d+ tokens, \\d+\\.\\d tokens/s \\| [a-z ]+]";

    @AutoClose
    private static Engine engine;

    @TempDir
    Path dir;

    @BeforeAll
    static void load() throws IOException {
        engine = Engine.load(Path.of(CliRun.stories()), EngineOptions.defaults().withThreads(2));
    }

    private record Run(String out, String err) {}

    private static Run chat(Session session, String lines) {
        return chat(session, lines, new StringWriter(), OPTIONS);
    }

    private static Run chat(Session session, String lines, Writer outSink, GenerationOptions options) {
        StringWriter err = new StringWriter();
        PrintWriter out = new PrintWriter(outSink);
        new ChatLoop(
                        session,
                        options,
                        new PlainInput(new ByteArrayInputStream(lines.getBytes(StandardCharsets.UTF_8))),
                        out,
                        new PrintWriter(err),
                        "")
                .run();
        out.flush();
        return new Run(outSink.toString(), err.toString());
    }

    @Test
    void everyReplyGetsATimingLine() {
        try (Session s = engine.newSession()) {
            Run r = chat(s, "Hello\nTell me more\n");
            assertThat(r.err().lines().filter(l -> l.matches(TIMING))).hasSize(2);
            assertThat(r.err()).contains("| max tokens]");
        }
    }

    /** Ctrl-C (interrupt) in the middle of a reply: the reply stops, the conversation goes on with it. */
    @Test
    void anInterruptStopsTheReplyAndKeepsTheConversation() {
        try (Session s = engine.newSession()) {
            ChatLoop[] loop = new ChatLoop[1];
            StringWriter shown = new StringWriter();
            Writer interrupting = new Writer() {
                @Override
                public void write(char[] c, int off, int len) {
                    shown.write(c, off, len);
                    if (len > 0 && s.history().isEmpty()) {
                        loop[0].interrupt(); // as the terminal's INT handler does
                    }
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };
            StringWriter err = new StringWriter();
            PrintWriter out = new PrintWriter(interrupting);
            loop[0] = new ChatLoop(
                    s,
                    OPTIONS.withMaxTokens(200),
                    new PlainInput(new ByteArrayInputStream("Hello\nGo on\n".getBytes(StandardCharsets.UTF_8))),
                    out,
                    new PrintWriter(err),
                    "");
            loop[0].run();
            assertThat(err.toString())
                    .contains("(stopped; the reply so far stays in the conversation)")
                    .contains("| cancelled]");
            assertThat(s.history())
                    .extracting(ChatMessage::role)
                    .containsExactly("user", "assistant", "user", "assistant");
            assertThat(s.history().get(1).content()).isNotEmpty().hasSizeLessThan(40); // cut after a token or two
            assertThat(s.history().get(3).content()).isNotEmpty(); // the second reply ran to its end
        }
    }

    @Test
    void regenEditSaveAndLoad() {
        Path file = dir.resolve("talk.session");
        try (Session s = engine.newSession()) {
            Run r = chat(s, "Hello\n/regen\n/edit Hi there\n/save " + file + "\n");
            assertThat(s.history())
                    .containsExactly(ChatMessage.user("Hi there"), s.history().get(1));
            assertThat(r.err()).contains("(saved 2 messages, ");
            assertThat(r.err().lines().filter(l -> l.matches(TIMING))).hasSize(3);
        }
        try (Session s = engine.newSession()) {
            Run r = chat(s, "/load " + file + "\n");
            assertThat(r.err()).contains("(loaded 2 messages, ");
            assertThat(s.history().get(0)).isEqualTo(ChatMessage.user("Hi there"));
        }
    }

    @Test
    void badCommandsAreOneLineAndTheLoopGoesOn() {
        try (Session s = engine.newSession()) {
            Run r = chat(s, "/regen\n/save\n/load " + dir.resolve("missing") + "\n/edit\n/frobnicate\n/help\n");
            assertThat(r.err().lines())
                    .containsExactly(
                            "jacap: there is no chat turn to take back",
                            "jacap: /save needs a file name",
                            "jacap: cannot load " + dir.resolve("missing") + ": no such file",
                            "jacap: /edit needs the new text of your last message",
                            "jacap: unknown command /frobnicate; " + ChatLoop.HELP,
                            ChatLoop.HELP);
            assertThat(r.out()).isEmpty();
        }
    }

    @Test
    void theContextCheckCountsWhatIsNeededAndPointsAtKvBudget() {
        // -n 512 at a 48-token context: the message is accepted, the reply stops where the context ends
        try (Session s = engine.newSession(SessionOptions.defaults().withContextLength(48))) {
            Run r = chat(s, "Hello there\nAnd again\n", new StringWriter(), OPTIONS.withMaxTokens(512));
            assertThat(r.err())
                    .contains("(the reply filled the context of 48 tokens; type /reset to start over, or run with a"
                            + " larger --ctx, or --kv-budget N to evict old entries)")
                    .contains("| context full]");
            assertThat(r.err().lines().filter(l -> l.startsWith("jacap: context overflow: ")))
                    .singleElement()
                    .asString()
                    .endsWith("> context of 48 tokens (type /reset to start over, or run with a larger --ctx, or"
                            + " --kv-budget N to evict old entries)");
        }
    }
}

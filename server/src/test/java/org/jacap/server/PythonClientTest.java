package org.jacap.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jacap.engine.Engine;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.Session;
import org.jacap.sampling.SamplerConfig;
import org.jacap.tokenizer.ChatMessage;
import org.junit.jupiter.api.Test;

/**
 * The official {@code openai} Python package from PyPI against the server, in a venv under
 * target/ (skipped with a message when python3, venv or pip is missing or the install fails).
 */
class PythonClientTest {
    private static final Path VENV = Path.of("target", "pyenv").toAbsolutePath();

    record Result(int code, String out) {}

    private static Result run(long timeoutSeconds, String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }

    private static Path python() {
        Path py = VENV.resolve("bin/python");
        if (Files.isExecutable(py)
                && run(60, py.toString(), "-c", "import openai").code() == 0) {
            return py;
        }
        Result version = run(30, "python3", "--version");
        assumeTrue(version.code() == 0, "python3 not found: skipping the openai client test");
        Result venv = run(120, "python3", "-m", "venv", VENV.toString());
        assumeTrue(
                venv.code() == 0,
                "python3 -m venv failed, skipping: " + venv.out().strip());
        Result pip = run(300, VENV.resolve("bin/pip").toString(), "install", "-q", "openai");
        assumeTrue(pip.code() == 0, "pip install openai failed, skipping: " + lastLine(pip.out()));
        return py;
    }

    private static String lastLine(String s) {
        List<String> lines = s.strip().lines().toList();
        return lines.isEmpty() ? "" : lines.getLast();
    }

    @Test
    void theOfficialPythonClientChatsStreamsAndCompletes() throws IOException {
        Path py = python();
        Path script = Files.createTempFile("openai_client_check", ".py");
        try (InputStream in = PythonClientTest.class.getResourceAsStream("/openai_client_check.py")) {
            Files.write(script, in.readAllBytes());
        }
        try (Engine engine = TestServer.load(TestServer.stories());
                TestServer server =
                        TestServer.start(engine, ServerOptions.defaults().withApiKey("py-key"))) {
            Result r = run(120, py.toString(), script.toString(), server.base.toString(), "stories260K");
            assertThat(r.code()).as(r.out()).isZero();
            JsonNode out = TestServer.JSON.readTree(lastLine(r.out()));
            GenerationOptions greedy = GenerationOptions.defaults()
                    .withSampler(SamplerConfig.greedy())
                    .withMaxTokens(12);
            String chat;
            String completion;
            try (Session s = engine.newSession()) {
                chat = s.chat(List.of(ChatMessage.user("Tell me about a cat.")), greedy, (id, t) -> true)
                        .text();
            }
            try (Session s = engine.newSession()) {
                completion = s.generate("Once upon a time", greedy.withMaxTokens(10), (id, t) -> true)
                        .text();
            }
            assertThat(out.get("chat").asText()).isEqualTo(chat);
            assertThat(out.get("chat_finish").asText()).isEqualTo("length");
            assertThat(out.get("chat_usage").asInt()).isEqualTo(12);
            assertThat(out.get("chat_logprobs").asInt()).isEqualTo(12);
            assertThat(out.get("stream").asText()).isEqualTo(chat);
            assertThat(out.get("stream_pieces").asInt()).isGreaterThan(1);
            assertThat(out.get("completion").asText()).isEqualTo(completion);
            assertThat(out.get("models").get(0).asText()).isEqualTo("stories260K");
        } finally {
            Files.deleteIfExists(script);
        }
    }
}

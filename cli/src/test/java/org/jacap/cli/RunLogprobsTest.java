package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --logprobs N [--logprobs-file F]} and {@code --ignore-eos}. */
class RunLogprobsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<JsonNode> parse(String lines) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : lines.lines().toList()) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    @Test
    void withoutAFileTheJsonLinesReplaceTheTextOnStdout() throws IOException {
        CliRun plain = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "16", "--print-ids");
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "16", "--logprobs", "3");
        assertThat(r.code()).as(r.err()).isZero();
        List<JsonNode> lines = parse(r.out());
        assertThat(lines).hasSize(16);
        String[] ids = plain.out().lines().toList().getLast().split(",");
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            JsonNode l = lines.get(i);
            assertThat(l.get("i").asInt()).isEqualTo(i);
            assertThat(l.get("id").asText()).isEqualTo(ids[i]);
            assertThat(l.get("top")).hasSize(3);
            assertThat(l.get("top").get(0).get("id").asInt())
                    .isEqualTo(l.get("id").asInt()); // greedy
            assertThat(l.get("logprob").asDouble())
                    .isEqualTo(l.get("top").get(0).get("logprob").asDouble())
                    .isLessThanOrEqualTo(0);
            text.append(l.get("piece").asText());
        }
        assertThat(plain.out()).contains(text.toString().replace('\u2581', ' ').strip());
    }

    @Test
    void withAFileStdoutKeepsTheText(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("lp.jsonl");
        CliRun plain = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "16");
        CliRun r = CliRun.line(
                "run -m {} -p {} -n 16 --logprobs 2 --logprobs-file {}",
                CliRun.stories(),
                "Once upon a time",
                file.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(plain.out());
        assertThat(parse(Files.readString(file)))
                .hasSize(16)
                .allMatch(l -> l.get("top").size() == 2);
    }

    /** SmolLM2's chat answers end on <|im_end|> within 64 tokens; llama.cpp's reference ran past it with ignore_eos. */
    @Test
    void ignoreEosGeneratesEveryRequestedToken() throws IOException {
        Path model = Fixtures.realModel("SmolLM2-135M-Instruct.Q4_1.gguf");
        JsonNode ref = JSON.readTree(Fixtures.dir()
                .resolve("realmodels/SmolLM2-135M-Instruct.Q4_1.llamacpp.json")
                .toFile());
        // The chat cases end their reply with <|im_end|> (llama.cpp's top token at some step): take
        // the first that does so here within 128 tokens, then the same with --ignore-eos.
        String ended = null;
        for (JsonNode c : ref.get("chat")) {
            StringBuilder ids = new StringBuilder();
            for (JsonNode id : c.get("prompt_ids")) {
                ids.append(ids.isEmpty() ? "" : ",").append(id.asInt());
            }
            CliRun ends = CliRun.of("run", "-m", model.toString(), "--prompt-ids", ids.toString(), "-n", "128");
            if (ends.err().contains("stop: eos")) {
                ended = ids.toString();
                break;
            }
        }
        assertThat(ended).as("a chat case that ends on EOS").isNotNull();
        CliRun r = CliRun.of("run", "-m", model.toString(), "--prompt-ids", ended, "-n", "128", "--ignore-eos");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("128 tokens generated, stop: max tokens");
    }

    @Test
    void badValuesAreOneLine() {
        CliRun zero = CliRun.of("run", "-m", CliRun.stories(), "-p", "x", "--logprobs", "0");
        assertThat(zero.code()).isNotZero();
        assertThat(zero.errLines()).singleElement().asString().contains("--logprobs must be in [1, 100] (got 0)");
        CliRun fileOnly = CliRun.of("run", "-m", CliRun.stories(), "-p", "x", "--logprobs-file", "f.jsonl");
        assertThat(fileOnly.errLines()).singleElement().asString().contains("--logprobs-file needs --logprobs N");
    }
}

package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunCommandTest {
    private static JsonNode onceUponATime;

    @BeforeAll
    static void reference() throws IOException {
        JsonNode root = new ObjectMapper()
                .readTree(Fixtures.dir()
                        .resolve("reference/reference_generations.json")
                        .toFile());
        for (JsonNode c : root.get("models").get("stories260K.gguf")) {
            if (c.get("prompt").asText().equals("Once upon a time")) {
                onceUponATime = c;
            }
        }
    }

    private static String joined(JsonNode ids) {
        return StreamSupport.stream(ids.spliterator(), false)
                .map(JsonNode::asText)
                .collect(Collectors.joining(","));
    }

    @Test
    void promptIdsAndPrintIdsGiveTheReferenceIds() {
        CliRun r = CliRun.line(
                "run -m {} --prompt-ids {} -n 64 --temp 0 --print-ids -t 1",
                CliRun.stories(),
                joined(onceUponATime.get("prompt_ids")));
        assertThat(r.code()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines[lines.length - 1]).isEqualTo(joined(onceUponATime.get("greedy_ids")));
        assertThat(r.out()).startsWith(onceUponATime.get("text").asText()); // echoed prompt ids + story
        assertThat(r.err()).contains("prompt eval time").contains("eval time").contains("tokens per second");
    }

    @Test
    void aTextPromptStreamsTheStory() {
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "64", "--temp", "0");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(onceUponATime.get("text").asText().substring(1) + "\n");
    }

    @Test
    void thePlainCommandIsGreedyAndPrintsTheReferenceStory() {
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "64");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(onceUponATime.get("text").asText().substring(1) + "\n");
        assertThat(r.err()).contains("greedy");
    }

    @Test
    void aPromptFileWorksLikeDashP(@TempDir Path tmp) throws IOException {
        Path f = tmp.resolve("prompt.txt");
        Files.writeString(f, "Once upon a time\n");
        CliRun r =
                CliRun.of("run", "-m", CliRun.stories(), "-f", f.toString(), "-n", "64", "--temp", "0", "--print-ids");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).endsWith(joined(onceUponATime.get("greedy_ids")) + "\n");
    }

    @Test
    void anEmptyPromptMeansBosOnly() throws IOException {
        JsonNode fromBos = new ObjectMapper()
                .readTree(Fixtures.dir()
                        .resolve("reference/reference_generations.json")
                        .toFile())
                .get("models")
                .get("stories260K.gguf")
                .get(0);
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "-p", "", "-n", "64", "--temp", "0", "--print-ids");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).endsWith("\n" + joined(fromBos.get("greedy_ids")) + "\n");
    }

    @Test
    void aStopStringIsNotPrinted() {
        CliRun r = CliRun.of(
                "run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "64", "--temp", "0", "--stop", "Lily");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("Once upon a time, there was a little girl named \n");
        assertThat(r.err()).contains("stop: stop string");
    }

    @Test
    void aSeedMakesSampledRunsRepeatable() {
        String[] args = {
            "run",
            "-m",
            CliRun.stories(),
            "-p",
            "Once upon a time",
            "-n",
            "20",
            "--seed",
            "7",
            "--temp",
            "1.1",
            "--top-k",
            "20",
            "--top-p",
            "0.9",
            "--min-p",
            "0.02",
            "--repeat-penalty",
            "1.1",
            "--repeat-last-n",
            "16",
            "--print-ids"
        };
        CliRun a = CliRun.of(args);
        CliRun b = CliRun.of(args);
        assertThat(a.code()).as(a.err()).isZero();
        assertThat(a.out()).isEqualTo(b.out());
        assertThat(a.err()).contains("seed 7");
    }

    @Test
    void aDashPromptFileIsStandardInput() {
        java.io.InputStream saved = System.in;
        System.setIn(new java.io.ByteArrayInputStream(
                "Once upon a time\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        CliRun piped;
        try {
            piped = CliRun.of("run", "-m", CliRun.stories(), "-f", "-", "-n", "8", "--temp", "0");
        } finally {
            System.setIn(saved);
        }
        CliRun direct = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "8", "--temp", "0");
        assertThat(piped.code()).as(piped.err()).isZero();
        assertThat(piped.out()).isNotEmpty().isEqualTo(direct.out());
    }

    @Test
    void aPromptLongerThanTheContextIsOneLine() {
        CliRun r = CliRun.of(
                "run", "-m", CliRun.stories(), "-p", "Once upon a time there was a little girl", "--ctx", "8");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .startsWith("jacap: context overflow: prompt of ")
                .contains("> context of 8 tokens");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aMissingModelIsOneLine() {
        CliRun r = CliRun.of("run", "-m", "/nonexistent/model.gguf", "-p", "hi");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines()).containsExactly("jacap: file not found: /nonexistent/model.gguf");
    }

    @Test
    void badValuesAreOneLineWithAHelpHint() {
        String m = "/nonexistent.gguf"; // flags are checked before the model is opened
        String[][] cases = {
            {"-n", "-1"},
            {"--temp", "-0.5"},
            {"--top-p", "0"},
            {"--top-p", "1.5"},
            {"--min-p", "2"},
            {"--top-k", "-3"},
            {"--repeat-penalty", "0"},
            {"--precision", "f16"},
            {"--threads", "0"},
            {"--ctx", "-5"},
            {"--temp", "hot"},
            {"--prompt-ids", "1,x"},
            {"--prompt-ids", ""},
            {"--bogus"},
        };
        for (String[] bad : cases) {
            String[] args = Stream.concat(Stream.of("run", "-m", m, "-p=hi"), Arrays.stream(bad))
                    .toArray(String[]::new);
            if (bad[0].equals("--prompt-ids")) {
                args = new String[] {"run", "-m", m, "--prompt-ids", bad[1]};
            }
            CliRun r = CliRun.of(args);
            r.assertUsageError("run", String.join(" ", bad));
            assertThat(r.out()).isEmpty();
        }
    }

    @Test
    void promptSourcesAreExclusiveAndOneIsRequired() {
        CliRun both = CliRun.of("run", "-m", "x.gguf", "-p", "hi", "--prompt-ids", "1,2");
        assertThat(both.code()).isEqualTo(1);
        assertThat(both.errLines()).singleElement().asString().contains("mutually exclusive");

        CliRun none = CliRun.of("run", "-m", "x.gguf");
        assertThat(none.code()).isEqualTo(1);
        assertThat(none.errLines()).singleElement().asString().startsWith("jacap: Missing required");

        CliRun noBosWithIds = CliRun.of("run", "-m", "x.gguf", "--prompt-ids", "1", "--no-bos");
        assertThat(noBosWithIds.errLines()).singleElement().asString().contains("--no-bos applies to text prompts");
    }

    @Test
    void anOutOfVocabularyIdIsOneLine() {
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "--prompt-ids", "1,99999");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines()).containsExactly("jacap: token id 99999 is outside the vocabulary [0, 512)");
    }

    @Test
    void verbosePromptShowsTheTokensTheModelSees() {
        CliRun run = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "2", "--verbose-prompt");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.err()).contains("prompt: 'Once upon a time'", "number of tokens in prompt = 5");
        assertThat(run.err()).containsPattern("(?m)^ +1 -> '<s>'$");
        assertThat(run.out()).startsWith("Once upon a time");
    }
}

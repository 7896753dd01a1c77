package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jacap.bench.report.Csv;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jacap bench} end to end, with tiny lengths (speed is never asserted). */
class BenchCommandTest {
    @TempDir
    Path dir;

    @Test
    void syntheticTinyModelIsGeneratedCachedAndMeasured() throws Exception {
        String cache = dir.resolve("cache").toString();
        CliRun run = CliRun.line(
                "bench --synthetic tiny --type q8_0 --cache-dir {} -p 16 -n 4 -r 2 --warmup 0 -t 1 -o json", cache);
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(Files.exists(Path.of(cache, "synthetic-tiny-q8_0-42.gguf"))).isTrue();
        assertThat(run.err()).contains("generating synthetic-tiny-q8_0-42.gguf");
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(json).hasSize(2);
        assertThat(json.get(0).get("test").asText()).isEqualTo("pp16");
        assertThat(json.get(0).get("model_type").asText()).isEqualTo("llama 4M Q8_0");
        assertThat(json.get(0).get("n_threads").asInt()).isEqualTo(1);
        assertThat(json.get(1).get("test").asText()).isEqualTo("tg4");
        assertThat(json.get(1).get("samples_ns")).hasSize(2);
        assertThat(json.get(1).get("avg_ts").asDouble()).isPositive();

        // Second run: the cached file is reused, and the Markdown table has llama-bench's shape.
        CliRun again =
                CliRun.line("bench --synthetic tiny --type q8_0 --cache-dir {} -p 8 -n 0 -r 1 --warmup 0 -t 1", cache);
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.err()).doesNotContain("generating");
        List<String> lines = again.out().lines().toList();
        assertThat(lines.get(0))
                .isEqualTo(
                        "| model                          |       size |     params | backend    | threads |            test |                  t/s |");
        assertThat(lines.get(2))
                .startsWith(
                        "| llama 4M Q8_0                  |   4.26 MiB |     4.20 M | Java CPU   |       1 |             pp8 |");
        assertThat(again.out()).contains("load ").contains("KV cache pp8 ");
    }

    @Test
    void anyGgufWithEvictionTimingsAsCsv() {
        CliRun run = CliRun.line(
                "bench -m {} -p 32 -n 2 -r 1 --warmup 0 -t 1 -o csv --kv-policy knorm,snapkv:window=8"
                        + " --kv-ratio 0.75",
                Fixtures.dir().resolve("models/stories260K-Q8_0.gguf").toString());
        assertThat(run.code()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(1)).contains(",llama 293K Q8_0,").contains(",pp32,");
        assertThat(lines.get(2)).contains(",tg2,");
        assertThat(lines.get(3)).contains(",pp32,").contains(",knorm,0.75,8,");
        assertThat(lines.get(4))
                .contains(",\"snapkv:window_size=8,kernel_size=5\",0.75,8,"); // the canonical spec, defaults included
    }

    @Test
    void depthsRunEveryTestAfterAContext() {
        CliRun run = CliRun.line(
                "bench -m {} -p 8 -n 2 -d 0,40 -r 1 --warmup 0 -t 1 -o csv",
                Fixtures.dir().resolve("models/stories260K-Q8_0.gguf").toString());
        assertThat(run.code()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).contains(",n_prompt,n_gen,n_depth,test,");
        assertThat(lines.get(1)).contains(",8,0,0,pp8,");
        assertThat(lines.get(2)).contains(",0,2,0,tg2,");
        assertThat(lines.get(3)).contains(",8,0,40,pp8 @ d40,");
        assertThat(lines.get(4)).contains(",0,2,40,tg2 @ d40,");
        // the KV cache at a depth holds the depth too (the same model, 10x the positions)
        long shallow = Long.parseLong(Csv.parse(lines.get(2)).getFirst().get(15));
        long deep = Long.parseLong(Csv.parse(lines.get(4)).getFirst().get(15));
        assertThat(deep).isGreaterThan(shallow);
    }

    @Test
    void badCommandLinesEndInOneMessage() {
        String model = Fixtures.dir().resolve("models/stories260K-Q8_0.gguf").toString();
        assertThat(CliRun.of("bench", "-m", model, "--synthetic", "1b").errLines())
                .singleElement()
                .asString()
                .contains("cannot be combined with -m");
        assertThat(CliRun.of("bench", "-m", dir.resolve("missing.gguf").toString())
                        .errLines())
                .singleElement()
                .asString()
                .startsWith("jacap: file not found");
        assertThat(CliRun.of("bench", "-m", model, "-o", "xml").errLines())
                .singleElement()
                .asString()
                .contains("unknown output format 'xml'");
        assertThat(CliRun.of("bench", "-m", model, "-p", "0", "-n", "0").errLines())
                .singleElement()
                .asString()
                .contains("nothing to measure");
        assertThat(CliRun.of("bench", "--synthetic", "7b", "--cache-dir", dir.toString())
                        .errLines())
                .singleElement()
                .asString()
                .contains("unknown synthetic shape '7b'");
        assertThat(CliRun.of("bench", "-m", model, "--kv-policy", "bogus", "-r", "1")
                        .errLines())
                .singleElement()
                .asString()
                .contains("unknown KV eviction policy 'bogus'");
        assertThat(CliRun.of("bench", "-m", model, "--kv-ratio", "0.5").errLines())
                .singleElement()
                .asString()
                .contains("--kv-ratio needs --kv-policy");
        assertThat(CliRun.of("bench", "-m", model, "-d", "-1").errLines())
                .singleElement()
                .asString()
                .contains("-d depths must be >= 0 (got -1)");
        assertThat(CliRun.of("bench", "-m", model, "-d", "16", "--kv-policy", "knorm", "-r", "1")
                        .errLines())
                .singleElement()
                .asString()
                .contains("--kv-policy times eviction after a prefill into an empty context; drop -d");
        CliRun tooDeep = CliRun.of("bench", "-m", model, "-p", "0", "-n", "8", "-d", "2045", "-r", "1");
        assertThat(tooDeep.code()).isEqualTo(1);
        assertThat(tooDeep.errLines()[tooDeep.errLines().length - 1])
                .contains("tg8 @ d2045 needs 2053 positions but the model's context is 2048");
        CliRun tooLong = CliRun.of("bench", "-m", model, "-p", "5000", "-n", "0", "-r", "1", "--warmup", "0");
        assertThat(tooLong.code()).isEqualTo(1);
        assertThat(tooLong.errLines()[tooLong.errLines().length - 1])
                .contains("pp5000 needs 5000 positions but the model's context is 2048");
    }
}

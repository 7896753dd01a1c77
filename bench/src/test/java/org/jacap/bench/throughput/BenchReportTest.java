package org.jacap.bench.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class BenchReportTest {
    private static final BenchedModel MODEL =
            new BenchedModel("llama 1B Q4_0", "synthetic-1b-q4_0-42.gguf", 763_000_000L, 1_235_814_400L);

    private static BenchReport report() {
        // pp512: 512 tokens in 8 s and 7.68 s → 64.00 and 66.67 t/s; tg128: 128 tokens in 5.12 s ×2 → 25 t/s.
        return new BenchReport(
                List.of(
                        new BenchResult(
                                MODEL,
                                "Java CPU",
                                2,
                                BenchCase.prompt(512),
                                new long[] {8_000_000_000L, 7_680_000_000L},
                                1_500_000_000L,
                                16L << 20),
                        new BenchResult(
                                MODEL,
                                "Java CPU",
                                2,
                                BenchCase.generation(128),
                                new long[] {5_120_000_000L, 5_120_000_000L},
                                1_500_000_000L,
                                4L << 20)),
                OptionalLong.of(812L << 20));
    }

    @Test
    void testNamesAreLlamaBenchs() {
        assertThat(BenchCase.prompt(512).name()).isEqualTo("pp512");
        assertThat(BenchCase.generation(128).name()).isEqualTo("tg128");
        assertThat(new BenchCase(16, 4).name()).isEqualTo("pp16+tg4");
        assertThatThrownBy(() -> new BenchCase(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void throughputIsTheMeanOfPerRepetitionRates() {
        BenchResult r = report().results().getFirst();
        assertThat(r.tokensPerSecond()).containsExactly(64.0, 66.66666666666667);
        assertThat(r.throughput().format(2)).isEqualTo("65.33 ± 1.89");
    }

    @Test
    void markdownHasLlamaBenchsColumnsAndAFactsLine() {
        String md = report().render(ReportFormat.MD);
        assertThat(md.lines().toList())
                .startsWith(
                        "| model                          |       size |     params | backend    | threads |            test |                  t/s |",
                        "| ------------------------------ | ---------: | ---------: | ---------- | ------: | --------------: | -------------------: |",
                        "| llama 1B Q4_0                  | 727.65 MiB |     1.24 B | Java CPU   |       2 |           pp512 |         65.33 ± 1.89 |",
                        "| llama 1B Q4_0                  | 727.65 MiB |     1.24 B | Java CPU   |       2 |           tg128 |         25.00 ± 0.00 |",
                        "");
        assertThat(md).contains("load 1.50 s · peak RSS 812.00 MiB · KV cache pp512 16.00 MiB, tg128 4.00 MiB");
    }

    @Test
    void csvHasOneLinePerTest() {
        List<String> lines = report().render(ReportFormat.CSV).lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0))
                .startsWith(
                        "model_filename,model_type,model_size,model_n_params,backend,n_threads,n_prompt,n_gen,n_depth,test,avg_ns");
        assertThat(lines.get(1))
                .isEqualTo("synthetic-1b-q4_0-42.gguf,llama 1B Q4_0,763000000,1235814400,Java CPU,2,512,0,0,pp512,"
                        + "7840000000,226274170,65.333333,1.885618,1500.000,16777216," + (812L << 20) + ",,,,,");
    }

    @Test
    void jsonIsAnArrayOfTestsWithSamples() throws Exception {
        JsonNode root = new ObjectMapper().readTree(report().render(ReportFormat.JSON));
        assertThat(root.isArray()).isTrue();
        assertThat(root).hasSize(2);
        JsonNode tg = root.get(1);
        assertThat(tg.get("test").asText()).isEqualTo("tg128");
        assertThat(tg.get("n_gen").asInt()).isEqualTo(128);
        assertThat(tg.get("n_depth").asInt()).isZero();
        assertThat(tg.get("avg_ts").asDouble()).isEqualTo(25.0);
        assertThat(tg.get("samples_ns")).hasSize(2);
        assertThat(tg.get("peak_rss_bytes").asLong()).isEqualTo(812L << 20);
    }

    @Test
    void evictionTimingsGetTheirOwnTableAndColumns() throws Exception {
        BenchReport base = report();
        java.util.List<BenchResult> rows = new java.util.ArrayList<>(base.results());
        rows.add(new BenchResult(
                MODEL,
                "Java CPU",
                2,
                BenchCase.prompt(512),
                new long[] {8_000_000_000L, 8_000_000_000L},
                1_500_000_000L,
                16L << 20,
                new EvictionTiming("capkv:n_sink=4", 0.5, 256, new long[] {12_000_000L, 14_000_000L})));
        BenchReport r = new BenchReport(rows, OptionalLong.empty());
        String md = r.render(ReportFormat.MD);
        // The llama-bench table keeps its two rows; the eviction row goes below it.
        assertThat(md.lines().filter(l -> l.startsWith("| llama 1B Q4_0"))).hasSize(2);
        assertThat(md)
                .contains(
                        "| kv policy      | threads |     test | ratio |  kept | prefill t/s with stats |       scoring ms |");
        assertThat(md)
                .contains(
                        "| capkv:n_sink=4 |       2 |    pp512 | 0.500 |   256 |           64.00 ± 0.00 |     13.00 ± 1.41 |");
        assertThat(md).contains("load 1.50 s · KV cache pp512 16.00 MiB, tg128 4.00 MiB");
        List<String> csv = r.render(ReportFormat.CSV).lines().toList();
        assertThat(csv.get(3)).endsWith(",capkv:n_sink=4,0.5,256,13.000000,1.414214");
        JsonNode e = new ObjectMapper().readTree(r.render(ReportFormat.JSON)).get(2);
        assertThat(e.get("kv_policy").asText()).isEqualTo("capkv:n_sink=4");
        assertThat(e.get("scoring_ns")).hasSize(2);
        assertThat(new ObjectMapper()
                        .readTree(r.render(ReportFormat.JSON))
                        .get(0)
                        .has("kv_policy"))
                .isFalse();
    }

    @Test
    void automaticWarmUpEndsWhenTimingsSettle() {
        long s = 1_000_000_000L;
        assertThat(ThroughputBenchmark.warmedUp(6 * s, 0, 6 * s)).isTrue(); // one long repetition
        assertThat(ThroughputBenchmark.warmedUp(s / 10, s / 10, s)).isFalse(); // settled but under 2 s
        assertThat(ThroughputBenchmark.warmedUp(100, 102, 3 * s)).isTrue(); // within 3% after 2 s
        assertThat(ThroughputBenchmark.warmedUp(100, 110, 3 * s)).isFalse(); // still 10% apart
        assertThat(ThroughputBenchmark.warmedUp(100, 0, 3 * s)).isFalse(); // nothing to compare yet
        assertThat(ThroughputBenchmark.warmedUp(100, 200, 16 * s)).isTrue(); // give up after 15 s
    }

    @Test
    void fileTypesAreSpelledAsLlamaBenchSpellsThem() {
        assertThat(FileTypeNames.name(0)).isEqualTo("all F32");
        assertThat(FileTypeNames.name(2)).isEqualTo("Q4_0");
        assertThat(FileTypeNames.name(7)).isEqualTo("Q8_0");
        assertThat(FileTypeNames.name(15)).isEqualTo("Q4_K - Medium");
        assertThat(FileTypeNames.name(11)).isEqualTo("Q3_K - Small");
        assertThat(FileTypeNames.name(999)).isEqualTo("ftype 999");
    }

    @Test
    void formatNamesParseCaseInsensitively() {
        assertThat(ReportFormat.parse("JSON")).isEqualTo(ReportFormat.JSON);
        assertThatThrownBy(() -> ReportFormat.parse("sql")).hasMessageContaining("unknown output format 'sql'");
    }

    @Test
    void peakRssIsParsedFromProcStatus() {
        assertThat(ProcessMemory.parsePeakRss(List.of("Name:\tjava", "VmHWM:\t  812345 kB", "VmRSS:\t 1 kB")))
                .isEqualTo(OptionalLong.of(812345L * 1024));
        assertThat(ProcessMemory.parsePeakRss(List.of("Name:\tjava"))).isEmpty();
        if (java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/self/status"))) {
            assertThat(ProcessMemory.peakRssBytes().orElseThrow()).isPositive();
        }
    }
}

package org.jacap.bench.throughput;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.jacap.bench.report.Csv;
import org.jacap.bench.report.JsonWriter;
import org.jacap.bench.report.MarkdownTable;
import org.jacap.bench.report.MarkdownTable.Column;
import org.jacap.bench.report.SampleStats;
import org.jacap.bench.report.Units;

/**
 * The results of one {@code jacap bench} run, rendered as llama-bench renders its own: a Markdown
 * table ({@code | model | size | params | backend | threads | test | t/s |}), CSV or a JSON array.
 * The facts llama-bench does not print (load time, peak RSS, KV-cache bytes) follow the Markdown
 * table as one line and are extra fields in CSV and JSON.
 */
public record BenchReport(List<BenchResult> results, OptionalLong peakRssBytes) {

    private static final List<String> CSV_FIELDS = List.of(
            "model_filename",
            "model_type",
            "model_size",
            "model_n_params",
            "backend",
            "n_threads",
            "n_prompt",
            "n_gen",
            "n_depth",
            "test",
            "avg_ns",
            "stddev_ns",
            "avg_ts",
            "stddev_ts",
            "load_ms",
            "kv_cache_bytes",
            "peak_rss_bytes",
            "kv_policy",
            "kv_ratio",
            "kv_kept",
            "scoring_avg_ms",
            "scoring_stddev_ms");

    public BenchReport {
        results = List.copyOf(results);
    }

    public String render(ReportFormat format) {
        return switch (format) {
            case MD -> markdown();
            case CSV -> csv();
            case JSON -> json();
        };
    }

    public String markdown() {
        MarkdownTable table = new MarkdownTable(BenchedModel.columns(
                Column.left("backend", 10),
                Column.right("threads", 7),
                Column.right("test", 15),
                Column.right("t/s", 20)));
        for (BenchResult r : results) {
            if (r.eviction() == null) {
                table.row(r.model()
                        .cells(
                                r.backend(),
                                Integer.toString(r.threads()),
                                r.test().name(),
                                r.throughput().format(2)));
            }
        }
        return table.render() + "\n" + factsLine() + "\n" + evictionTable();
    }

    /** Prefill with each policy's statistics gathered, then the compression's wall time; empty without --kv-policy. */
    String evictionTable() {
        MarkdownTable table = new MarkdownTable(List.of(
                Column.left("kv policy", 12),
                Column.right("threads", 7),
                Column.right("test", 8),
                Column.right("ratio", 5),
                Column.right("kept", 5),
                Column.right("prefill t/s with stats", 22),
                Column.right("scoring ms", 16)));
        boolean any = false;
        for (BenchResult r : results) {
            EvictionTiming e = r.eviction();
            if (e != null) {
                any = true;
                table.row(
                        e.policy(),
                        Integer.toString(r.threads()),
                        r.test().name(),
                        Units.fixed(e.ratio(), 3),
                        Integer.toString(e.keptPerHead()),
                        r.throughput().format(2),
                        e.scoringMillis().format(2));
            }
        }
        return any ? "\n" + table.render() : "";
    }

    /** "load 0.42 s · peak RSS 812.40 MiB · KV cache pp512 16.00 MiB, tg128 4.00 MiB". */
    String factsLine() {
        List<String> parts = new ArrayList<>();
        Map<Integer, Long> loadByThreads = new LinkedHashMap<>();
        Map<String, Long> kvByTest = new LinkedHashMap<>();
        for (BenchResult r : results) {
            loadByThreads.putIfAbsent(r.threads(), r.loadNanos());
            if (r.eviction() == null) {
                kvByTest.putIfAbsent(r.test().name(), r.kvCacheBytes());
            }
        }
        List<String> loads = new ArrayList<>();
        loadByThreads.forEach((t, ns) ->
                loads.add(Units.fixed(ns / 1e9, 2) + " s" + (loadByThreads.size() > 1 ? " (" + t + "t)" : "")));
        parts.add("load " + String.join(", ", loads));
        peakRssBytes.ifPresent(b -> parts.add("peak RSS " + Units.bytes(b)));
        List<String> kv = new ArrayList<>();
        kvByTest.forEach((test, bytes) -> kv.add(test + " " + Units.bytes(bytes)));
        parts.add("KV cache " + String.join(", ", kv));
        return String.join(" · ", parts);
    }

    public String csv() {
        StringBuilder sb = new StringBuilder(Csv.line(CSV_FIELDS));
        for (BenchResult r : results) {
            SampleStats ns = r.nanos();
            SampleStats ts = r.throughput();
            sb.append(Csv.line(List.of(
                    r.model().fileName(),
                    r.model().type(),
                    Long.toString(r.model().sizeBytes()),
                    Long.toString(r.model().params()),
                    r.backend(),
                    Integer.toString(r.threads()),
                    Integer.toString(r.test().promptTokens()),
                    Integer.toString(r.test().genTokens()),
                    Integer.toString(r.test().depth()),
                    r.test().name(),
                    Long.toString(Math.round(ns.mean())),
                    Long.toString(Math.round(ns.stddev())),
                    Units.fixed(ts.mean(), 6),
                    Units.fixed(ts.stddev(), 6),
                    Units.fixed(r.loadNanos() / 1e6, 3),
                    Long.toString(r.kvCacheBytes()),
                    peakRssBytes.isPresent() ? Long.toString(peakRssBytes.getAsLong()) : "",
                    r.eviction() == null ? "" : r.eviction().policy(),
                    r.eviction() == null ? "" : Double.toString(r.eviction().ratio()),
                    r.eviction() == null ? "" : Integer.toString(r.eviction().keptPerHead()),
                    r.eviction() == null
                            ? ""
                            : Units.fixed(r.eviction().scoringMillis().mean(), 6),
                    r.eviction() == null
                            ? ""
                            : Units.fixed(r.eviction().scoringMillis().stddev(), 6))));
        }
        return sb.toString();
    }

    public String json() {
        JsonWriter w = new JsonWriter().beginArray();
        for (BenchResult r : results) {
            SampleStats ns = r.nanos();
            SampleStats ts = r.throughput();
            w.beginObject()
                    .field("model_filename", r.model().fileName())
                    .field("model_type", r.model().type())
                    .field("model_size", r.model().sizeBytes())
                    .field("model_n_params", r.model().params())
                    .field("backend", r.backend())
                    .field("n_threads", r.threads())
                    .field("n_prompt", r.test().promptTokens())
                    .field("n_gen", r.test().genTokens())
                    .field("n_depth", r.test().depth())
                    .field("test", r.test().name())
                    .field("avg_ns", Math.round(ns.mean()))
                    .field("stddev_ns", Math.round(ns.stddev()))
                    .field("avg_ts", ts.mean())
                    .field("stddev_ts", ts.stddev())
                    .field("load_ms", r.loadNanos() / 1e6)
                    .field("kv_cache_bytes", r.kvCacheBytes());
            if (peakRssBytes.isPresent()) {
                w.field("peak_rss_bytes", peakRssBytes.getAsLong());
            }
            if (r.eviction() != null) {
                EvictionTiming e = r.eviction();
                w.field("kv_policy", e.policy())
                        .field("kv_ratio", e.ratio())
                        .field("kv_kept", e.keptPerHead())
                        .field("scoring_avg_ms", e.scoringMillis().mean())
                        .field("scoring_stddev_ms", e.scoringMillis().stddev())
                        .array("scoring_ns", e.scoringNs());
            }
            w.array("samples_ns", r.samplesNs())
                    .array("samples_ts", r.tokensPerSecond())
                    .endObject();
        }
        return w.endArray() + "\n";
    }
}

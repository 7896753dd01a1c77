package org.jacap.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufFileType;
import org.jacap.gguf.GgufMetadata;
import org.jacap.gguf.GgufTensorInfo;
import org.jacap.gguf.GgufValue;

/**
 * The "what model is this" block of {@code jacap inspect}. Read leniently: a missing or oddly
 * typed key only leaves its line out, so inspect works on any file the loader accepts.
 *
 * @param lines in display order
 */
record ModelSummary(List<Line> lines) {

    /**
     * One line.
     *
     * @param label for the text report
     * @param key   for the JSON report
     * @param text  the value as text
     * @param json  the value for JSON (String, Long, Double, Map, List)
     */
    record Line(String label, String key, String text, Object json) {}

    static ModelSummary of(GgufFile file) {
        GgufMetadata md = file.metadata();
        List<Line> lines = new ArrayList<>();
        String arch = string(md, "general.architecture");
        text(arch, "architecture", "architecture", lines);
        text(string(md, "general.name"), "name", "name", lines);
        if (!file.tensors().isEmpty()) {
            long params = file.parameterCount();
            lines.add(new Line("parameters", "parameters", humanCount(params) + " (" + grouped(params) + ")", params));
        }
        if (md.get("general.file_type").orElse(null) instanceof GgufValue.IntValue ft) {
            GgufFileType t = GgufFileType.fromId(ft.value());
            String label = t != null ? t.label() : "unknown (" + ft.value() + ")";
            lines.add(new Line("file type", "file_type", label, label));
        }
        if (!file.tensors().isEmpty()) {
            tensorTypes(file, lines);
        }
        if (arch != null) {
            number(md, arch + ".context_length", "context length", "context_length", lines);
            number(md, arch + ".embedding_length", "embedding length", "embedding_length", lines);
            number(md, arch + ".block_count", "blocks", "block_count", lines);
            number(md, arch + ".feed_forward_length", "feed-forward length", "feed_forward_length", lines);
            number(md, arch + ".attention.head_count", "attention heads", "head_count", lines);
            number(md, arch + ".attention.head_count_kv", "KV heads", "head_count_kv", lines);
        }
        vocabSize(md, arch, lines);
        text(string(md, "tokenizer.ggml.model"), "tokenizer", "tokenizer", lines);
        text(string(md, "tokenizer.ggml.pre"), "pre-tokenizer", "pre_tokenizer", lines);
        return new ModelSummary(List.copyOf(lines));
    }

    /** Tensor count per type (most frequent first), and bits per weight over all tensors. */
    private static void tensorTypes(GgufFile file, List<Line> lines) {
        Map<GgmlType, Long> counts = new EnumMap<>(GgmlType.class);
        long bytes = 0;
        for (GgufTensorInfo t : file.tensors()) {
            counts.merge(t.type(), 1L, Long::sum);
            bytes += t.byteSize();
        }
        Map<String, Long> sorted = new LinkedHashMap<>();
        counts.entrySet().stream()
                .sorted(Map.Entry.<GgmlType, Long>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> sorted.put(e.getKey().name(), e.getValue()));
        StringBuilder text = new StringBuilder();
        sorted.forEach((type, n) -> text.append(text.isEmpty() ? "" : ", ")
                .append(type)
                .append(" ×")
                .append(n));
        lines.add(new Line("tensor types", "tensor_types", text.toString(), sorted));
        long params = file.parameterCount();
        lines.add(
                new Line("tensor data", "tensor_bytes", grouped(bytes) + " bytes (" + humanBytes(bytes) + ")", bytes));
        if (params > 0) {
            double bpw = bytes * 8.0 / params;
            lines.add(new Line(
                    "bits per weight",
                    "bits_per_weight",
                    String.format(Locale.ROOT, "%.2f", bpw),
                    Math.round(bpw * 1000) / 1000.0));
        }
    }

    private static void vocabSize(GgufMetadata md, String arch, List<Line> lines) {
        long n = -1;
        if (md.get("tokenizer.ggml.tokens").orElse(null) instanceof GgufValue.ArrayValue a) {
            n = a.length();
        } else if (arch != null && md.get(arch + ".vocab_size").orElse(null) instanceof GgufValue.IntValue v) {
            n = v.value();
        }
        if (n >= 0) {
            lines.add(new Line("vocab size", "vocab_size", grouped(n), n));
        }
    }

    /** An integer key, or a per-layer integer array (some models vary head counts by layer). */
    private static void number(GgufMetadata md, String key, String label, String jsonKey, List<Line> lines) {
        GgufValue v = md.get(key).orElse(null);
        if (v instanceof GgufValue.IntValue i) {
            lines.add(new Line(label, jsonKey, grouped(i.value()), i.value()));
        } else if (v instanceof GgufValue.ArrayValue a && a.elementType().isInteger()) {
            List<Long> values = new ArrayList<>();
            for (long x : a.longs()) {
                values.add(x);
            }
            lines.add(new Line(label, jsonKey, "per layer " + ValueText.abbreviated(a), values));
        }
    }

    /** A text line, escaped for the report; none when the key is absent ({@code value} null). */
    private static void text(String value, String label, String jsonKey, List<Line> lines) {
        if (value != null) {
            lines.add(new Line(label, jsonKey, ValueText.escaped(value), value));
        }
    }

    private static String string(GgufMetadata md, String key) {
        return md.get(key).orElse(null) instanceof GgufValue.StringValue s ? s.value() : null;
    }

    static String grouped(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** 292352 → 292.35K, as llama.cpp prints parameter counts. */
    static String humanCount(long n) {
        if (n < 1000) {
            return Long.toString(n);
        }
        return scaled(n, 1000, "%.2f%s", "K", "M", "B", "T");
    }

    /** 260640 → 254.5 KiB. */
    static String humanBytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        return scaled(n, 1024, "%.1f %s", "KiB", "MiB", "GiB", "TiB");
    }

    /** {@code n} (at least {@code base}) divided by {@code base} until it fits a unit, in {@code format}. */
    private static String scaled(long n, int base, String format, String... units) {
        double v = n;
        int u = -1;
        while (v >= base && u < units.length - 1) {
            v /= base;
            u++;
        }
        return String.format(Locale.ROOT, format, v, units[u]);
    }
}

package org.jacap.bench.throughput;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jacap.bench.report.MarkdownTable.Column;
import org.jacap.bench.report.Units;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;

/**
 * The model a bench row measured, as the bench table names it: llama-bench's "model" cell
 * ({@code arch size ftype}, e.g. "llama 1B Q4_0"), the file name, the bytes of all tensors and the
 * parameter count. (The {@code jacap inspect} report's model block is the CLI's {@code ModelSummary}.)
 */
public record BenchedModel(String type, String fileName, long sizeBytes, long params) {

    /** llama-bench's first three columns, which name the model (model, size, params), then {@code more}. */
    public static List<Column> columns(Column... more) {
        List<Column> columns = new ArrayList<>(
                List.of(Column.left("model", 30), Column.right("size", 10), Column.right("params", 10)));
        columns.addAll(List.of(more));
        return columns;
    }

    /** This model's cells under {@link #columns}' first three, then {@code more}. */
    public List<String> cells(String... more) {
        List<String> cells = new ArrayList<>(List.of(type, Units.bytes(sizeBytes), Units.params(params)));
        cells.addAll(List.of(more));
        return cells;
    }

    public static BenchedModel of(GgufFile file, Path path) {
        long bytes = 0;
        long params = 0;
        Map<GgmlType, Long> elementsByType = new EnumMap<>(GgmlType.class);
        for (GgufTensorInfo t : file.tensors()) {
            bytes += t.byteSize();
            params += t.elementCount();
            if (t.rank() >= 2) {
                elementsByType.merge(t.type(), t.elementCount(), Long::sum);
            }
        }
        var md = file.metadata();
        String arch = md.getString("general.architecture", "unknown");
        String size = md.getString("general.size_label", Units.sizeLabel(params));
        String ftype = md.contains("general.file_type")
                ? FileTypeNames.name(md.getLong("general.file_type"))
                : dominant(elementsByType);
        return new BenchedModel(
                arch + " " + size + " " + ftype, path.getFileName().toString(), bytes, params);
    }

    private static String dominant(Map<GgmlType, Long> elementsByType) {
        return elementsByType.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(e -> e.getKey().name())
                .orElse("?");
    }
}

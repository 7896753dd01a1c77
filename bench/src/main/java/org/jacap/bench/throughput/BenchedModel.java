package org.jacap.bench.throughput;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
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

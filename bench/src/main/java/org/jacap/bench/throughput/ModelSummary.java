package org.jacap.bench.throughput;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import org.jacap.bench.report.Units;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;

/**
 * What the bench table says about a model: llama-bench's "model" cell ({@code arch size ftype},
 * e.g. "llama 1B Q4_0"), the bytes of all tensors and the parameter count.
 */
public record ModelSummary(String type, String fileName, long sizeBytes, long params) {

    public static ModelSummary of(GgufFile file, Path path) {
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
        return new ModelSummary(
                arch + " " + size + " " + ftype, path.getFileName().toString(), bytes, params);
    }

    private static String dominant(Map<GgmlType, Long> elementsByType) {
        return elementsByType.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(e -> e.getKey().name())
                .orElse("?");
    }
}

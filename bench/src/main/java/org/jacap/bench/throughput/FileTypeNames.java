package org.jacap.bench.throughput;

import org.jacap.gguf.GgufFileType;

/** llama-bench's spelling of a {@code general.file_type}: "all F32", "Q4_0", "Q4_K - Medium". */
final class FileTypeNames {
    private FileTypeNames() {}

    static String name(long fileType) {
        GgufFileType t = GgufFileType.fromId(fileType);
        if (t == null) {
            return "ftype " + fileType;
        }
        if (t == GgufFileType.ALL_F32) {
            return "all F32";
        }
        String label = t.label();
        // llama.cpp spells the K-quant mixes out: Q4_K_M → "Q4_K - Medium".
        if (label.matches("Q\\d_K_[SML]")) {
            String size = switch (label.charAt(label.length() - 1)) {
                case 'S' -> "Small";
                case 'M' -> "Medium";
                default -> "Large";
            };
            return label.substring(0, 4) + " - " + size;
        }
        return label;
    }
}

package org.jacap.bench.throughput;

/** Names of GGUF {@code general.file_type} values (llama.cpp's llama_ftype), as llama-bench prints them. */
final class FileTypeNames {
    private FileTypeNames() {
    }

    static String name(int fileType) {
        return switch (fileType) {
            case 0 -> "all F32";
            case 1 -> "F16";
            case 2 -> "Q4_0";
            case 3 -> "Q4_1";
            case 7 -> "Q8_0";
            case 8 -> "Q5_0";
            case 9 -> "Q5_1";
            case 10 -> "Q2_K - Medium";
            case 11 -> "Q3_K - Small";
            case 12 -> "Q3_K - Medium";
            case 13 -> "Q3_K - Large";
            case 14 -> "Q4_K - Small";
            case 15 -> "Q4_K - Medium";
            case 16 -> "Q5_K - Small";
            case 17 -> "Q5_K - Medium";
            case 18 -> "Q6_K";
            case 32 -> "BF16";
            default -> "ftype " + fileType;
        };
    }
}

package org.jacap.bench.report;

import java.util.Locale;

/** Number formatting shared by the reports; always Locale.ROOT so a German desktop still writes "1.50". */
public final class Units {
    private static final double MIB = 1024.0 * 1024.0;
    private static final double GIB = MIB * 1024.0;

    private Units() {}

    public static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** llama-bench's size cell: MiB below 1 GiB, GiB above. */
    public static String bytes(long bytes) {
        return bytes < GIB ? fixed(bytes / MIB, 2) + " MiB" : fixed(bytes / GIB, 2) + " GiB";
    }

    /** llama-bench's params cell: millions below 1e9, billions above. */
    public static String params(long params) {
        return params < 1_000_000_000L ? fixed(params / 1e6, 2) + " M" : fixed(params / 1e9, 2) + " B";
    }

    /** Short size label for a model type, as GGUF's general.size_label: 260K, 15M, 1B, 8B. */
    public static String sizeLabel(long params) {
        if (params >= 1_000_000_000L) {
            return trim(params / 1e9) + "B";
        }
        if (params >= 1_000_000L) {
            return trim(params / 1e6) + "M";
        }
        return trim(params / 1e3) + "K";
    }

    private static String trim(double v) {
        return v >= 10 ? Long.toString(Math.round(v)) : fixed(v, 1).replaceAll("\\.0$", "");
    }
}

package org.jacap.bench.throughput;

import java.util.Locale;

/** Output formats of {@code jacap bench}, named as llama-bench's {@code -o}. */
public enum ReportFormat {
    MD,
    CSV,
    JSON;

    public static ReportFormat parse(String name) {
        for (ReportFormat f : values()) {
            if (f.name().equalsIgnoreCase(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown output format '" + name + "' (expected md, csv or json)");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package org.jacap.bench.throughput;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/** Resident set size of this process, peak (VmHWM) and current (VmRSS), from Linux's /proc/self/status. */
public final class ProcessMemory {
    private ProcessMemory() {}

    /** Empty where /proc is absent (macOS, Windows) or unreadable. */
    public static OptionalLong peakRssBytes() {
        try {
            return parsePeakRss(Files.readAllLines(Path.of("/proc/self/status")));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** The resident set size now; empty where /proc is absent or unreadable. */
    public static OptionalLong currentRssBytes() {
        try {
            return parse(Files.readAllLines(Path.of("/proc/self/status")), "VmRSS:");
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** Parses a line such as {@code "VmHWM:\t  812345 kB"}. */
    static OptionalLong parsePeakRss(List<String> statusLines) {
        return parse(statusLines, "VmHWM:");
    }

    private static OptionalLong parse(List<String> statusLines, String key) {
        for (String line : statusLines) {
            if (line.startsWith(key)) {
                String[] parts = line.substring(key.length()).trim().split("\\s+");
                long value = Long.parseLong(parts[0]);
                return OptionalLong.of(parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? value * 1024 : value);
            }
        }
        return OptionalLong.empty();
    }
}

package org.jacap.bench.throughput;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/** Peak resident set size of this process, from Linux's /proc/self/status (VmHWM). */
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

    /** Parses a line such as {@code "VmHWM:\t  812345 kB"}. */
    static OptionalLong parsePeakRss(List<String> statusLines) {
        for (String line : statusLines) {
            if (line.startsWith("VmHWM:")) {
                String[] parts = line.substring(6).trim().split("\\s+");
                long value = Long.parseLong(parts[0]);
                return OptionalLong.of(parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? value * 1024 : value);
            }
        }
        return OptionalLong.empty();
    }
}

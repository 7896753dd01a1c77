package org.jacap.simd;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locates ../shared/fixtures (system property {@code jacap.fixtures}); skips tests when absent. */
final class Fixtures {
    private Fixtures() {}

    static Path dir() {
        String p = System.getProperty("jacap.fixtures", "../shared/fixtures");
        Path dir = Path.of(p).toAbsolutePath().normalize();
        assumeTrue(Files.isDirectory(dir), "fixtures folder not found at " + dir + " (set -Djacap.fixtures)");
        return dir;
    }

    static Path file(String relative) {
        Path f = dir().resolve(relative);
        assumeTrue(Files.isRegularFile(f), "fixture " + f + " not found");
        return f;
    }
}

package org.jacap.bench.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locates ../shared/fixtures (system property {@code jacap.fixtures}); skips a test when absent. */
public final class Fixtures {
    private Fixtures() {}

    public static Path model(String name) {
        return file("models", name);
    }

    /** A random-weight model of {@code oracle/models} (llama.cpp's reference architectures). */
    public static Path oracleModel(String name) {
        return file("oracle/models", name);
    }

    private static Path file(String folder, String name) {
        Path dir = Path.of(System.getProperty("jacap.fixtures", "../shared/fixtures"))
                .toAbsolutePath()
                .normalize();
        assumeTrue(Files.isDirectory(dir), "fixtures folder not found at " + dir + " (set -Djacap.fixtures)");
        Path p = dir.resolve(folder).resolve(name);
        assumeTrue(Files.isRegularFile(p), "fixture model missing: " + p);
        return p;
    }
}

package org.jacap.model;

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

    /** A model file: oracle/models/NAME or models/NAME; skips the test when neither exists. */
    static Path model(String name) {
        Path d = dir();
        for (Path p : new Path[] {
            d.resolve("oracle/models").resolve(name), d.resolve("models").resolve(name)
        }) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        assumeTrue(false, "model " + name + " not found under " + d);
        return null;
    }
}

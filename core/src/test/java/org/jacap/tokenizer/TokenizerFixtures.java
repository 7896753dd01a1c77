package org.jacap.tokenizer;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jacap.gguf.GgufFile;

/** Locates ../shared/fixtures (system property {@code jacap.fixtures}) and loads tokenizers from it, once each. */
final class TokenizerFixtures {
    private static final Map<Path, Tokenizer> LOADED = new ConcurrentHashMap<>();

    private TokenizerFixtures() {}

    static Path dir() {
        String p = System.getProperty("jacap.fixtures", "../shared/fixtures");
        Path dir = Path.of(p).toAbsolutePath().normalize();
        assumeTrue(Files.isDirectory(dir), "fixtures folder not found at " + dir + " (set -Djacap.fixtures)");
        return dir;
    }

    static Path vocab(String name) {
        Path file = dir().resolve("vocab").resolve("ggml-vocab-" + name + ".gguf");
        assumeTrue(Files.isRegularFile(file), "fixture not found: " + file);
        return file;
    }

    static Path model(String name) {
        Path file = dir().resolve("models").resolve(name);
        assumeTrue(Files.isRegularFile(file), "fixture not found: " + file);
        return file;
    }

    static Tokenizer load(Path gguf) {
        return LOADED.computeIfAbsent(gguf, p -> {
            try (GgufFile file = GgufFile.open(p)) {
                return Tokenizer.fromMetadata(file.metadata());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}

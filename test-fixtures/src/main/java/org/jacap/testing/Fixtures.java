package org.jacap.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.ThrowingConsumer;

/**
 * Where the tests find their inputs, for every module's tests: the shared fixtures folder
 * ({@code ../shared/fixtures}, system property {@code jacap.fixtures}) and the real models that
 * {@code scripts/fetch-models} caches (system property {@code jacap.models}). A relative path is
 * taken from the working directory, which Maven sets to the module's folder. Every method skips the
 * calling test (JUnit's {@code assumeTrue}) when what it looks for is absent.
 */
public final class Fixtures {
    private Fixtures() {}

    /** The fixtures folder. */
    public static Path dir() {
        String p = System.getProperty("jacap.fixtures", "../shared/fixtures");
        Path dir = Path.of(p).toAbsolutePath().normalize();
        assumeTrue(Files.isDirectory(dir), "fixtures folder not found at " + dir + " (set -Djacap.fixtures)");
        return dir;
    }

    /** A file of the fixtures folder, by its path relative to it. */
    public static Path file(String relative) {
        Path f = dir().resolve(relative);
        assumeTrue(Files.isRegularFile(f), "fixture " + f + " not found");
        return f;
    }

    /** A model of {@code models/} (stories260K and the tiny random Llama). */
    public static Path model(String name) {
        return file("models/" + name);
    }

    /** A random-weight model of {@code oracle/models} (llama.cpp's reference architectures). */
    public static Path oracleModel(String name) {
        return file("oracle/models/" + name);
    }

    /** A model of either folder, {@code oracle/models/NAME} first, then {@code models/NAME}. */
    public static Path anyModel(String name) {
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

    /** Every {@code .gguf} file below the fixtures folder, sorted by path. */
    public static List<Path> ggufFiles() {
        try (Stream<Path> s = Files.walk(dir())) {
            return s.filter(p -> p.toString().endsWith(".gguf")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One dynamic test a fixture file, named by the file's path under the fixtures folder. */
    public static Stream<DynamicTest> eachFile(List<Path> files, ThrowingConsumer<Path> test) {
        Path dir = dir();
        return files.stream().map(f -> DynamicTest.dynamicTest(dir.relativize(f).toString(), () -> test.accept(f)));
    }

    /** The tokenizer-only file {@code vocab/ggml-vocab-NAME.gguf}. */
    public static Path vocab(String name) {
        return file("vocab/ggml-vocab-" + name + ".gguf");
    }

    /** The folder of the real models ({@code -Djacap.models}, by default scripts/fetch-models' cache). */
    public static Path realModelsDir() {
        return Path.of(System.getProperty("jacap.models", System.getProperty("user.home") + "/.cache/jacap/models"));
    }

    /** A real model cached by {@code scripts/fetch-models}, by its file name. */
    public static Path realModel(String fileName) {
        Path p = realModelsDir().resolve(fileName);
        assumeTrue(Files.isRegularFile(p), "real model missing (run scripts/fetch-models): " + p);
        return p;
    }
}

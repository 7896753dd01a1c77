package org.jacap.engine;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The shared fixtures ({@code -Djacap.fixtures}); tests skip with a message when they are absent. */
final class EngineFixtures {
    private EngineFixtures() {}

    static Path dir() {
        Path dir = Path.of(System.getProperty("jacap.fixtures", "../shared/fixtures"))
                .toAbsolutePath()
                .normalize();
        assumeTrue(Files.isDirectory(dir), "fixtures folder not found at " + dir + " (set -Djacap.fixtures)");
        return dir;
    }

    static Path model(String name) {
        Path p = dir().resolve("models").resolve(name);
        assumeTrue(Files.isRegularFile(p), "fixture model missing: " + p);
        return p;
    }

    /** A real model cached by scripts/fetch-models ({@code -Djacap.models}); skips when it is absent. */
    static Path realModel(String name) {
        Path p = Path.of(System.getProperty("jacap.models", System.getProperty("user.home") + "/.cache/jacap/models"))
                .resolve(name);
        assumeTrue(Files.isRegularFile(p), "real model missing (run scripts/fetch-models): " + p);
        return p;
    }

    /** One greedy reference run from reference/reference_generations*.json. */
    record Reference(String model, String prompt, int[] promptIds, int[] greedyIds, String text) {
        @Override
        public String toString() {
            return model + " \"" + prompt + "\"";
        }
    }

    /** Every stories260K-family case of every reference_generations*.json file present (random-weight models excluded: their margins are too small for ids). */
    static List<Reference> references() {
        List<Reference> out = new ArrayList<>();
        try (var files = Files.list(dir().resolve("reference"))) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("reference_generations"))
                    .sorted()
                    .toList()) {
                JsonNode root = new ObjectMapper().readTree(f.toFile());
                for (var model : root.get("models").properties()) {
                    if (!model.getKey().startsWith("stories260K")) {
                        continue;
                    }
                    for (JsonNode c : model.getValue()) {
                        out.add(new Reference(
                                model.getKey(),
                                c.get("prompt").asText(),
                                ints(c.get("prompt_ids")),
                                ints(c.get("greedy_ids")),
                                c.get("text").asText()));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static int[] ints(JsonNode array) {
        int[] a = new int[array.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = array.get(i).asInt();
        }
        return a;
    }
}

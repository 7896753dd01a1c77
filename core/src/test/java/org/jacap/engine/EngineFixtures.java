package org.jacap.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jacap.testing.Fixtures;

/** The engine tests' greedy reference runs ({@code reference/} of the shared fixtures). */
final class EngineFixtures {
    private EngineFixtures() {}

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
        try (var files = Files.list(Fixtures.dir().resolve("reference"))) {
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

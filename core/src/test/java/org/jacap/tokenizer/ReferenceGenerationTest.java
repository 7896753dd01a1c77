package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The prompts and greedy generations in fixtures/reference: every prompt encodes (with BOS) to the
 * recorded ids, and prompt + generated ids decode to the recorded text, for every model listed.
 */
class ReferenceGenerationTest {

    @TestFactory
    Stream<DynamicTest> promptIdsAndDecodedTextMatchTheReference() throws IOException {
        Path dir = Fixtures.dir().resolve("reference");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().startsWith("reference_generations"))
                    .sorted()
                    .toList();
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : files) {
            JsonNode models = new ObjectMapper().readTree(file.toFile()).get("models");
            for (Map.Entry<String, JsonNode> model : models.properties()) {
                for (JsonNode c : model.getValue()) {
                    String prompt = c.get("prompt").asText();
                    String name = model.getKey() + " \"" + prompt + "\"";
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        Tokenizer tok = TokenizerFixtures.load(Fixtures.model(model.getKey()));
                        int[] promptIds = ints(c.get("prompt_ids"));
                        int[] greedy = ints(c.get("greedy_ids"));
                        assertThat(tok.encode(prompt, tok.addBosByDefault(), false))
                                .containsExactly(promptIds);
                        int[] all = concat(promptIds, greedy);
                        assertThat(tok.decode(all)).isEqualTo(c.get("text").asText());
                        // streaming the same ids gives the same text, whole characters only
                        StreamingDecoder stream = tok.streamingDecoder();
                        StringBuilder sb = new StringBuilder();
                        for (int id : all) {
                            sb.append(stream.accept(id));
                        }
                        assertThat(sb.append(stream.flush()).toString())
                                .isEqualTo(c.get("text").asText());
                    }));
                }
            }
        }
        return tests.stream();
    }

    @Test
    void storiesPromptsWithBos() {
        Tokenizer tok = TokenizerFixtures.load(Fixtures.model("stories260K.gguf"));
        assertThat(tok.addBosByDefault()).isTrue();
        assertThat(tok.encode("Once upon a time", true, false)).containsExactly(1, 403, 407, 261, 378);
        assertThat(tok.encode("Lily and Tom went to the park", true, false))
                .containsExactly(1, 317, 269, 274, 287, 263, 377, 267, 265, 282, 295, 433);
        assertThat(tok.encode("", true, false)).containsExactly(1);
        assertThat(tok.encode("", false, false)).isEmpty();
        // the leading space survives after BOS, and is dropped when the ids start without it
        assertThat(tok.decode(new int[] {1, 403, 407, 261, 378})).isEqualTo(" Once upon a time");
        assertThat(tok.decode(new int[] {403, 407, 261, 378})).isEqualTo("Once upon a time");
        assertThat(tok.piece(1)).isEqualTo("<s>");
        assertThat(tok.piece(403)).isEqualTo(" Once");
        assertThat(tok.isEndOfGeneration(2)).isTrue();
        assertThat(tok.isEndOfGeneration(1)).isFalse();
    }

    static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }

    static int[] concat(int[] a, int[] b) {
        int[] out = new int[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * llama.cpp's tokenizer test vectors: every case of every {@code .inp}/{@code .out} pair in
 * fixtures/vocab, encoded without BOS and without parsing special tokens, must give exactly the
 * listed ids. New pairs dropped into the folder are picked up without code changes.
 */
class VocabFixtureTest {
    static final String SEPARATOR = "\n__ggml_vocab_test__\n";

    record Case(String text, int[] ids) {}

    static List<Case> cases(Path inp) throws IOException {
        String in = Files.readString(inp, StandardCharsets.UTF_8);
        List<String> texts = new ArrayList<>(Arrays.asList(in.split(SEPARATOR, -1)));
        if (!texts.isEmpty() && texts.getLast().isEmpty()) {
            texts.removeLast(); // the file ends with a separator
        }
        Path outFile = Path.of(inp.toString().replaceAll("\\.inp$", ".out"));
        List<String> lines = Files.readAllLines(outFile, StandardCharsets.UTF_8);
        assertThat(lines).as("lines of %s", outFile).hasSizeGreaterThanOrEqualTo(texts.size());
        List<Case> cases = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            String line = lines.get(i).trim();
            int[] ids = line.isEmpty()
                    ? new int[0]
                    : Arrays.stream(line.split("\\s+"))
                            .mapToInt(Integer::parseInt)
                            .toArray();
            cases.add(new Case(texts.get(i), ids));
        }
        return cases;
    }

    static List<Path> inputs() throws IOException {
        try (Stream<Path> files = Files.list(Fixtures.dir().resolve("vocab"))) {
            return files.filter(p -> p.toString().endsWith(".gguf.inp"))
                    .sorted()
                    .toList();
        }
    }

    @TestFactory
    Stream<DynamicNode> everyCaseOfEveryVocab() throws IOException {
        List<DynamicNode> nodes = new ArrayList<>();
        for (Path inp : inputs()) {
            Path gguf = Path.of(inp.toString().replaceAll("\\.inp$", ""));
            List<Case> cases = cases(inp);
            List<DynamicTest> tests = new ArrayList<>();
            for (int i = 0; i < cases.size(); i++) {
                Case c = cases.get(i);
                String name = "case " + i + ": " + abbreviate(c.text());
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    Tokenizer tok = TokenizerFixtures.load(gguf);
                    int[] actual = tok.encode(c.text(), false, false);
                    assertEquals(Arrays.toString(c.ids()), Arrays.toString(actual), "ids of " + abbreviate(c.text()));
                }));
            }
            nodes.add(DynamicContainer.dynamicContainer(
                    gguf.getFileName().toString() + " (" + cases.size() + " cases)", tests));
        }
        return nodes.stream();
    }

    static String abbreviate(String s) {
        String e = s.replace("\n", "\\n").replace("\t", "\\t");
        return e.length() > 40 ? e.substring(0, 40) + "…" : e;
    }
}

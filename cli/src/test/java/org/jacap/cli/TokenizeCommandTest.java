package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

class TokenizeCommandTest {

    private static Path vocab(String name) {
        return Fixtures.dir().resolve("vocab").resolve(name);
    }

    @Test
    void everyVocabularyOnlyFileTokenizesItsFirstTestCase() throws IOException {
        List<Path> files;
        try (var list = Files.list(Fixtures.dir().resolve("vocab"))) {
            files = list.filter(p -> p.toString().endsWith(".gguf")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        for (Path gguf : files) {
            String[] inputs = Files.readString(Path.of(gguf + ".inp"), StandardCharsets.UTF_8)
                    .split("\n__ggml_vocab_test__\n", -1);
            List<String> outputs = Files.readAllLines(Path.of(gguf + ".out"), StandardCharsets.UTF_8);
            for (int i = 0; i < 1; i++) { // the tokenizer's own tests cover every case; here: the command's plumbing
                CliRun r = CliRun.of("tokenize", "-m", gguf.toString(), inputs[i]);
                assertThat(r.code()).as(r.err()).isZero();
                String expected =
                        Arrays.stream(outputs.get(i).strip().split(" ")).collect(Collectors.joining(","));
                assertThat(r.out()).as("%s case %d", gguf.getFileName(), i).isEqualTo(expected + "\n");
            }
        }
    }

    @Test
    void bosAndPieces() {
        String spm = vocab("ggml-vocab-llama-spm.gguf").toString();
        assertThat(CliRun.of("tokenize", "-m", spm, "Hello world").out()).isEqualTo("15043,3186\n");
        assertThat(CliRun.of("tokenize", "-m", spm, "Hello world", "--bos").out())
                .isEqualTo("1,15043,3186\n");
        CliRun pieces = CliRun.of("tokenize", "-m", spm, "Hello world\n", "--pieces");
        assertThat(pieces.code()).isZero();
        assertThat(pieces.out().lines()).containsExactly("15043\t' Hello'", "3186\t' world'", "13\t'\\n'");
    }

    @Test
    void specialTokenTextIsParsedOnlyWithSpecial() {
        String spm = vocab("ggml-vocab-llama-spm.gguf").toString();
        assertThat(CliRun.of("tokenize", "-m", spm, "</s>", "--special").out()).isEqualTo("2\n");
        assertThat(CliRun.of("tokenize", "-m", spm, "</s>").out()).isNotEqualTo("2\n");
    }

    @Test
    void aMissingFileIsOneLine() {
        CliRun r = CliRun.of("tokenize", "-m", "/nonexistent/vocab.gguf", "hi");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines()).containsExactly("jacap: file not found: /nonexistent/vocab.gguf");
    }

    @Test
    void missingTextIsOneLine() {
        CliRun r =
                CliRun.of("tokenize", "-m", vocab("ggml-vocab-llama-spm.gguf").toString());
        r.assertUsageError("tokenize", r.err()).startsWith("jacap: Missing required parameter");
    }
}

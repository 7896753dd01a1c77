package org.jacap.gguf;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Rewrites every fixture GGUF (all metadata, all tensors) with {@link GgufWriter}. The writer uses
 * llama.cpp's layout, so the result is byte-identical to the original, except for a file with a
 * repeated metadata key (ggml-vocab-dbrx.gguf): the reader keeps one copy, so the rewrite is one
 * entry shorter; there metadata and tensors are compared instead.
 */
class FixtureRewriteTest {

    @TestFactory
    Stream<DynamicTest> everyFixtureRewritesIdentically() throws Exception {
        List<Path> files = Fixtures.ggufFiles();
        assertThat(files).isNotEmpty();
        return Fixtures.eachFile(files, FixtureRewriteTest::check);
    }

    private static void check(Path file) throws Exception {
        byte[] original = Files.readAllBytes(file);
        try (GgufFile src = GgufFile.open(file)) {
            byte[] rewritten = GgufWriter.copyOf(src).toByteArray();
            if (src.warnings().isEmpty()) {
                int mismatch = Arrays.mismatch(original, rewritten);
                assertThat(mismatch)
                        .as(
                                "first differing byte of %s (sizes %d vs %d)",
                                file.getFileName(), original.length, rewritten.length)
                        .isEqualTo(-1);
            } else {
                assertThat(src.warnings()).allMatch(w -> w.contains("appears twice (same value)"));
                assertThat(rewritten.length).isLessThan(original.length);
            }
            GgufFile copy = GgufFile.fromSegment(MemorySegment.ofArray(rewritten));
            assertThat(copy.warnings()).isEmpty();
            assertThat(List.copyOf(copy.metadata().keys()))
                    .isEqualTo(List.copyOf(src.metadata().keys()));
            for (Map.Entry<String, GgufValue> e : src.metadata().asMap().entrySet()) {
                assertThat(GgufValue.sameContent(copy.metadata().get(e.getKey()).orElseThrow(), e.getValue()))
                        .as(e.getKey())
                        .isTrue();
            }
            assertThat(copy.tensors()).isEqualTo(src.tensors());
            for (GgufTensorInfo t : src.tensors()) {
                assertThat(copy.data(t).mismatch(src.data(t))).as(t.name()).isEqualTo(-1L);
            }
        }
    }
}

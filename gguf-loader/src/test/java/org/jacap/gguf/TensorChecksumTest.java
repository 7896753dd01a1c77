package org.jacap.gguf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Every tensor of every model in reference/tensor_checksums.json: offset, size and sha256 of the raw bytes. */
class TensorChecksumTest {

    @TestFactory
    Stream<DynamicTest> everyTensorMatchesItsChecksum() throws Exception {
        Path fixtures = Fixtures.dir();
        JsonNode root = new ObjectMapper()
                .readTree(fixtures.resolve("reference/tensor_checksums.json").toFile());
        List<DynamicTest> tests = new ArrayList<>();
        for (Map.Entry<String, JsonNode> model : root.properties()) {
            Path file = fixtures.resolve("models").resolve(model.getKey());
            JsonNode expected = model.getValue();
            tests.add(DynamicTest.dynamicTest(model.getKey(), () -> check(file, expected)));
        }
        return tests.stream();
    }

    private static void check(Path file, JsonNode expected) throws Exception {
        assertThat(Files.exists(file)).as("model file %s", file).isTrue();
        try (GgufFile gguf = GgufFile.open(file)) {
            assertThat(gguf.version()).isEqualTo(expected.get("version").asInt());
            assertThat(gguf.fileSize()).isEqualTo(expected.get("size").asLong());
            assertThat(gguf.tensors()).hasSize(expected.get("n_tensors").asInt());
            assertThat(gguf.metadata().keys()).hasSize(expected.get("n_kv").asInt());
            assertThat(gguf.alignment()).isEqualTo(expected.get("alignment").asInt());
            assertThat(gguf.dataStart()).isEqualTo(expected.get("data_start").asLong());
            for (JsonNode t : expected.get("tensors")) {
                GgufTensorInfo info = gguf.tensor(t.get("name").asText());
                assertThat(info.type().name())
                        .as(info.name())
                        .isEqualTo(t.get("type").asText());
                long[] dims = new long[t.get("dims").size()];
                for (int i = 0; i < dims.length; i++) {
                    dims[i] = t.get("dims").get(i).asLong();
                }
                assertThat(info.dims()).as(info.name()).containsExactly(dims);
                assertThat(info.offset())
                        .as(info.name())
                        .isEqualTo(t.get("offset").asLong());
                assertThat(gguf.dataStart() + info.offset())
                        .isEqualTo(t.get("abs_offset").asLong());
                assertThat(info.byteSize())
                        .as(info.name())
                        .isEqualTo(t.get("nbytes").asLong());
                byte[] bytes = gguf.data(info).toArray(ValueLayout.JAVA_BYTE);
                String sha = HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
                assertThat(sha)
                        .as("sha256 of %s", info.name())
                        .isEqualTo(t.get("sha256").asText());
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyFixtureGgufOpens() throws Exception {
        List<Path> files = Fixtures.ggufFiles();
        assertThat(files).isNotEmpty();
        return Fixtures.eachFile(files, f -> {
            try (GgufFile g = GgufFile.open(f)) {
                assertThat(g.metadata().keys()).isNotEmpty();
                for (GgufTensorInfo t : g.tensors()) {
                    MemorySegment data = g.data(t);
                    assertThat(data.byteSize()).isEqualTo(t.byteSize());
                }
            }
        });
    }
}

package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;
import org.jacap.gguf.GgufValue;
import org.jacap.gguf.GgufValueType;
import org.jacap.gguf.GgufWriter;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

class InspectCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** Exit code and what the command printed. */
    record Run(int code, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }
    }

    static Run jacap(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = JacapCli.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void printsSummaryMetadataAndTensorTable() throws Exception {
        Path model = Fixtures.model("stories260K-Q4_0.gguf");
        Run r = jacap("inspect", model.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        try (GgufFile f = GgufFile.open(model)) {
            String out = r.out();
            assertThat(out)
                    .contains("format     GGUF v3, little-endian")
                    .contains("size       260,640 bytes (254.5 KiB)")
                    .contains("alignment  32")
                    .contains("contents   21 metadata keys, 48 tensors");
            assertThat(out)
                    .containsPattern("architecture +llama\n")
                    .containsPattern("parameters +292\\.80K \\(292,800\\)\n")
                    .containsPattern("file type +Q4_0\n")
                    .containsPattern("tensor types +Q4_0 ×32, F32 ×11, F16 ×5\n")
                    .containsPattern("context length +2,048\n")
                    .containsPattern("embedding length +64\n")
                    .containsPattern("blocks +5\n")
                    .containsPattern("attention heads +8\n")
                    .containsPattern("KV heads +4\n")
                    .containsPattern("vocab size +512\n")
                    .containsPattern("tokenizer +llama\n");
            assertThat(f.parameterCount()).isEqualTo(292_800);
            assertThat(out)
                    .contains("metadata (21 keys)")
                    .containsPattern(
                            "tokenizer.ggml.tokens +\\[STRING] +\\['<unk>', '<s>', '</s>', .*, … \\(512 total\\)]\n")
                    .containsPattern("llama.attention.layer_norm_rms_epsilon +FLOAT32 +1.0E-5\n")
                    .containsPattern("tokenizer.ggml.seperator_token_id +UINT32 +4294967295\n");
            assertThat(out).contains("tensors (48)");
            // Every tensor row: index, name, type, shape, bytes, file offset.
            for (int i = 0; i < f.tensors().size(); i++) {
                GgufTensorInfo t = f.tensors().get(i);
                assertThat(out)
                        .containsPattern(" " + i + "  " + t.name().replace(".", "\\.") + " +" + t.type() + " +"
                                + t.shape().replace("[", "\\[") + " +" + ModelSummary.grouped(t.byteSize()) + " +"
                                + ModelSummary.grouped(f.dataStart() + t.offset()) + "\n");
            }
            assertThat(out).containsPattern(" 0  token_embd\\.weight +Q4_0 +\\[64, 512] +18,432 +14,240\n");
        }
    }

    @Test
    void sectionsCanBeLeftOut() {
        String model = Fixtures.model("stories260K-Q4_0.gguf").toString();
        Run noTensors = jacap("inspect", "--no-tensors", model);
        assertThat(noTensors.code()).isZero();
        assertThat(noTensors.out())
                .contains("metadata (21 keys)")
                .doesNotContain("tensors (48)")
                .doesNotContain("blk.0.attn_q.weight");
        Run noMetadata = jacap("inspect", "--no-metadata", model);
        assertThat(noMetadata.out())
                .contains("tensors (48)")
                .doesNotContain("metadata (")
                .doesNotContain("tokenizer.ggml.tokens");
        Run neither = jacap("inspect", "--no-metadata", "--no-tensors", model);
        assertThat(neither.out())
                .contains("architecture")
                .doesNotContain("metadata (")
                .doesNotContain("tensors (");
    }

    @Test
    void jsonHoldsEverythingInFull() throws Exception {
        Path model = Fixtures.model("stories260K-Q4_0.gguf");
        Run r = jacap("inspect", "--json", model.toString());
        assertThat(r.code()).isZero();
        JsonNode root = JSON.readTree(r.out());
        try (GgufFile f = GgufFile.open(model)) {
            assertThat(root.get("version").asInt()).isEqualTo(3);
            assertThat(root.get("size").asLong()).isEqualTo(260_640);
            assertThat(root.get("data_start").asLong()).isEqualTo(f.dataStart());
            JsonNode summary = root.get("summary");
            assertThat(summary.get("architecture").asText()).isEqualTo("llama");
            assertThat(summary.get("parameters").asLong()).isEqualTo(f.parameterCount());
            assertThat(summary.get("file_type").asText()).isEqualTo("Q4_0");
            assertThat(summary.get("tensor_types").get("Q4_0").asInt()).isEqualTo(32);
            assertThat(summary.get("head_count_kv").asInt()).isEqualTo(4);
            assertThat(summary.get("vocab_size").asInt()).isEqualTo(512);
            JsonNode tokens = root.get("metadata").get("tokenizer.ggml.tokens");
            assertThat(tokens.get("type").asText()).isEqualTo("ARRAY");
            assertThat(tokens.get("element_type").asText()).isEqualTo("STRING");
            assertThat(tokens.get("value")).hasSize(512);
            assertThat(tokens.get("value").get(511).asText())
                    .isEqualTo(f.metadata().getStringArray("tokenizer.ggml.tokens")[511]);
            assertThat(root.get("metadata")
                            .get("llama.attention.layer_norm_rms_epsilon")
                            .get("value")
                            .floatValue())
                    .isEqualTo(1e-5f);
            JsonNode tensors = root.get("tensors");
            assertThat(tensors).hasSize(48);
            for (int i = 0; i < 48; i++) {
                GgufTensorInfo t = f.tensors().get(i);
                JsonNode n = tensors.get(i);
                assertThat(n.get("name").asText()).isEqualTo(t.name());
                assertThat(n.get("type").asText()).isEqualTo(t.type().name());
                assertThat(n.get("shape").size()).isEqualTo(t.rank());
                assertThat(n.get("bytes").asLong()).isEqualTo(t.byteSize());
                assertThat(n.get("offset").asLong()).isEqualTo(t.offset());
                assertThat(n.get("file_offset").asLong()).isEqualTo(f.dataStart() + t.offset());
            }
        }
        JsonNode trimmed = JSON.readTree(jacap("inspect", "--json", "--no-metadata", "--no-tensors", model.toString())
                .out());
        assertThat(trimmed.has("metadata")).isFalse();
        assertThat(trimmed.has("tensors")).isFalse();
        assertThat(trimmed.has("summary")).isTrue();
    }

    @Test
    void keyPrintsOneValueInFull() throws Exception {
        String model = Fixtures.model("stories260K-Q4_0.gguf").toString();
        assertThat(jacap("inspect", "--key", "general.architecture", model).out())
                .isEqualTo("llama\n");
        assertThat(jacap("inspect", "--key", "llama.attention.layer_norm_rms_epsilon", model)
                        .out())
                .isEqualTo("1.0E-5\n");
        Run tokens = jacap("inspect", "--key", "tokenizer.ggml.tokens", model);
        assertThat(tokens.out().lines().toList()).hasSize(512).startsWith("<unk>", "<s>", "</s>", "<0x00>");
        JsonNode json = JSON.readTree(jacap("inspect", "--json", "--key", "tokenizer.ggml.scores", model)
                .out());
        assertThat(json.isArray()).isTrue();
        assertThat(json).hasSize(512);
        Run missing = jacap("inspect", "--key", "no.such.key", model);
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.out()).isEmpty();
        assertThat(missing.errLines()).containsExactly("jacap: no metadata key 'no.such.key' in " + model);
    }

    @Test
    void missingFileIsOneLineAndExitCode1() {
        Path missing = tmp.resolve("no-such-model.gguf");
        Run r = jacap("inspect", missing.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.errLines()).containsExactly("jacap: file not found: " + missing);
    }

    @Test
    void directoryAndEmptyFileAreOneLine() throws Exception {
        Run dir = jacap("inspect", tmp.toString());
        assertThat(dir.code()).isEqualTo(1);
        assertThat(dir.errLines()).containsExactly("jacap: I/O error: " + tmp + " is a directory, not a GGUF file");
        Path empty = Files.createFile(tmp.resolve("empty.gguf"));
        Run e = jacap("inspect", empty.toString());
        assertThat(e.code()).isEqualTo(1);
        assertThat(e.errLines()).containsExactly("jacap: " + empty + ": bad GGUF at byte 0: empty file");
    }

    @Test
    void truncatedFileIsOneLineNamingTheOffset() throws Exception {
        byte[] whole = Files.readAllBytes(Fixtures.model("stories260K-Q4_0.gguf"));
        Path inHeader = tmp.resolve("cut-in-header.gguf");
        Files.write(inHeader, Arrays.copyOf(whole, 5000)); // inside the tensor infos or the vocabulary
        Run h = jacap("inspect", inHeader.toString());
        assertThat(h.code()).isEqualTo(1);
        assertThat(h.out()).isEmpty();
        assertThat(h.errLines())
                .singleElement()
                .asString()
                .startsWith("jacap: " + inHeader + ": bad GGUF at byte ")
                .containsPattern("at byte \\d+: file ends while reading .* \\(needs \\d+ bytes, \\d+ left\\)");

        Path inData = tmp.resolve("cut-in-data.gguf");
        Files.write(inData, Arrays.copyOf(whole, 200_000));
        Run d = jacap("inspect", inData.toString());
        assertThat(d.code()).isEqualTo(1);
        assertThat(d.errLines())
                .singleElement()
                .asString()
                .startsWith("jacap: " + inData + ": bad GGUF at byte ")
                .contains("extends past the end of the file (200000 bytes)");
    }

    @Test
    void vocabOnlyFileWorks() {
        Path vocab = Fixtures.dir().resolve("vocab/ggml-vocab-dbrx.gguf");
        Run r = jacap("inspect", vocab.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("contents   24 metadata keys, 0 tensors")
                .contains("warning    metadata key 'general.file_type' appears twice (same value)")
                .containsPattern("vocab size +100,352\n")
                .containsPattern("tokenizer +gpt2\n")
                .containsPattern("pre-tokenizer +dbrx\n")
                .doesNotContain("tensors (")
                .doesNotContain("parameters");
        assertThat(r.out())
                .containsPattern(
                        "tokenizer.chat_template +STRING +'\\{% if messages\\[0]\\[\\\\'role\\\\'] == .*… \\(1842 chars\\)\n");
    }

    @Test
    void hostileNamesAndExtremeValuesStayPrintable() throws Exception {
        GgufWriter w = new GgufWriter()
                .putString("general.architecture", "llama")
                .putString("evil\nkey\u001b[2J", "line1\nline2\u0007")
                .putUInt64("u64.max", -1L)
                .putFloat32("f32.nan", Float.NaN)
                .putFloat64("f64.inf", Double.POSITIVE_INFINITY)
                .putString("long", "x".repeat(1000))
                .put("nested", GgufValue.ArrayValue.ofArrays(new GgufValue.ArrayValue[] {
                    GgufValue.ArrayValue.ofLongs(GgufValueType.INT8, new long[] {-1, 2}),
                    GgufValue.ArrayValue.ofStrings(new String[] {"a\tb"})
                }));
        w.addTensor("t", new long[] {4}, GgmlType.F32, new byte[16]);
        Path file = tmp.resolve("odd.gguf");
        w.write(file);
        Run r = jacap("inspect", file.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).doesNotContain("\u001b").doesNotContain("\u0007").doesNotContain("line1\nline2");
        assertThat(r.out())
                .contains("evil\\nkey\\x1b[2J")
                .contains("'line1\\nline2\\x07'")
                .containsPattern("u64.max +UINT64 +18446744073709551615\n")
                .containsPattern("f32.nan +FLOAT32 +NaN\n")
                .contains("'" + "x".repeat(60) + "'… (1000 chars)")
                .containsPattern("nested +\\[ARRAY] +\\[\\[-1, 2], \\['a\\\\tb']]\n");
        JsonNode root =
                JSON.readTree(jacap("inspect", "--json", file.toString()).out());
        JsonNode md = root.get("metadata");
        assertThat(md.get("evil\nkey\u001b[2J").get("value").asText()).isEqualTo("line1\nline2\u0007");
        assertThat(md.get("u64.max").get("value").bigIntegerValue().toString()).isEqualTo("18446744073709551615");
        assertThat(md.get("f32.nan").get("value").asText()).isEqualTo("NaN");
        assertThat(md.get("f64.inf").get("value").asText()).isEqualTo("Infinity");
        assertThat(md.get("long").get("value").asText()).hasSize(1000);
        assertThat(md.get("nested").get("value").get(1).get(0).asText()).isEqualTo("a\tb");
    }

    @TestFactory
    Stream<DynamicTest> everyFixtureInspectsInTextAndJson() throws Exception {
        List<Path> files = Fixtures.ggufFiles();
        return Fixtures.eachFile(files, f -> {
            Run text = jacap("inspect", f.toString());
            assertThat(text.code()).as(text.err()).isZero();
            assertThat(text.err()).isEmpty();
            Run json = jacap("inspect", "--json", f.toString());
            assertThat(json.code()).isZero();
            JsonNode root = JSON.readTree(json.out());
            try (GgufFile g = GgufFile.open(f)) {
                assertThat(root.get("tensors")).hasSize(g.tensors().size());
                assertThat(root.get("metadata").size())
                        .isEqualTo(g.metadata().keys().size());
                assertThat(text.out())
                        .contains("contents   " + g.metadata().keys().size() + " metadata keys, "
                                + g.tensors().size() + " tensors");
            }
        });
    }
}

package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.gguf.GgmlType;
import org.jacap.kv.KvCache;
import org.jacap.simd.Precision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading errors, progress, context limits and state handling on small synthetic models. */
class ModelLoadTest {
    static final LoadOptions OPTIONS = new LoadOptions(2, Precision.F32, null);

    @TempDir
    Path tmp;

    private static TinyGguf tiny() {
        return TinyGguf.llama(32, 2, 4, 2, 48, 40, 7);
    }

    private Model load(TinyGguf g) throws IOException {
        return Model.load(g.write(tmp.resolve("m.gguf")), OPTIONS);
    }

    @Test
    void syntheticModelLoadsAndRuns() throws IOException {
        try (Model m = load(tiny())) {
            assertThat(m.config().vocabSize()).isEqualTo(40);
            float[] logits = m.forward(m.newState(16), new int[] {1, 2, 3}, 0, 3, false);
            assertThat(logits).hasSize(40);
            assertThat(allFinite(logits)).isTrue();
        }
    }

    static boolean allFinite(float[] x) {
        for (float v : x) {
            if (!Float.isFinite(v)) {
                return false;
            }
        }
        return true;
    }

    @Test
    void unknownArchitecture() {
        TinyGguf g = tiny().put("general.architecture", "rwkv7");
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessage("unsupported architecture 'rwkv7' (supported: llama, qwen2, qwen3, gemma3, phi3)");
    }

    @Test
    void missingTensorIsNamed() {
        TinyGguf g = tiny().removeTensor("blk.1.ffn_up.weight");
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessage("missing tensor 'blk.1.ffn_up.weight' (required by architecture 'llama')");
    }

    @Test
    void qwen2RequiresBiases() {
        TinyGguf g = tiny();
        for (String k : List.copyOf(List.of(
                "context_length",
                "embedding_length",
                "block_count",
                "feed_forward_length",
                "attention.head_count",
                "attention.head_count_kv",
                "attention.layer_norm_rms_epsilon"))) {
            g.put(
                    "qwen2." + k,
                    k.endsWith("epsilon")
                            ? (Object) 1e-6f
                            : (Object)
                                    (switch (k) {
                                        case "context_length" -> 128;
                                        case "embedding_length" -> 32;
                                        case "block_count" -> 2;
                                        case "feed_forward_length" -> 48;
                                        case "attention.head_count" -> 4;
                                        default -> 2;
                                    }));
        }
        g.put("general.architecture", "qwen2");
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessage("missing tensor 'blk.0.attn_q.bias' (required by architecture 'qwen2')");
    }

    @Test
    void wrongShapeIsNamed() {
        TinyGguf g = tiny().f32("blk.0.attn_k.weight", new java.util.Random(1), 0.1, 32, 24);
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessage("tensor 'blk.0.attn_k.weight' has shape [32, 24], expected [32, 16]");
    }

    @Test
    void unsupportedTensorTypeIsNamed() throws IOException {
        // 256-wide rows so that a 256-element block type fits; IQ2_XXS has no kernel.
        TinyGguf g = TinyGguf.llama(256, 1, 4, 2, 256, 16, 3);
        g.raw("blk.0.attn_q.weight", GgmlType.IQ2_XXS, new byte[256 * GgmlType.IQ2_XXS.bytesPerBlock()], 256, 256);
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("blk.0.attn_q.weight")
                .hasMessageContaining("IQ2_XXS");
    }

    @Test
    void vocabularyMustMatchTheEmbedding() {
        String[] tokens = new String[41];
        java.util.Arrays.fill(tokens, "x");
        TinyGguf g = tiny().put("tokenizer.ggml.tokens", tokens);
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessage("token_embd.weight has 40 rows but the vocabulary has 41 tokens");
    }

    @Test
    void tiedEmbeddingsWhenOutputIsAbsent() throws IOException {
        try (Model m = load(tiny().removeTensor("output.weight"))) {
            assertThat(m.weights().output()).isSameAs(m.weights().tokenEmbedding());
        }
    }

    @Test
    void progressCoversEveryTensorByte() throws IOException {
        Path file = tiny().write(tmp.resolve("p.gguf"));
        List<long[]> calls = new ArrayList<>();
        try (Model m =
                Model.load(file, OPTIONS.withProgress((done, total, what) -> calls.add(new long[] {done, total})))) {
            long total = calls.get(0)[1];
            assertThat(calls.get(calls.size() - 1)).containsExactly(total, total);
            for (int i = 1; i < calls.size(); i++) {
                assertThat(calls.get(i)[0]).isGreaterThanOrEqualTo(calls.get(i - 1)[0]);
            }
            assertThat(calls).hasSizeGreaterThan(m.config().blockCount() * 9);
        }
    }

    @Test
    void contextOverflowNamesTheNumbers() throws IOException {
        try (Model m = load(tiny())) {
            int[] ids = new int[12];
            assertThatThrownBy(() -> m.forward(m.newState(10), ids, 0, 11, false))
                    .isInstanceOf(JacapException.class)
                    .hasMessage("prompt of 11 tokens exceeds the context of 10 tokens");
            InferenceState st = m.newState(10);
            m.forward(st, ids, 0, 8, false);
            assertThatThrownBy(() -> m.forward(st, ids, 0, 3, false))
                    .isInstanceOf(JacapException.class)
                    .hasMessage("8 tokens so far + 3 new exceeds the context of 10 tokens");
            assertThat(st.position()).isEqualTo(8); // the failed call changed nothing
            m.forward(st, ids, 0, 2, false);
            assertThat(st.position()).isEqualTo(10);
        }
    }

    @Test
    void aChunkListenerCanKeepTheCacheBounded() throws IOException {
        try (Model m = load(tiny())) {
            InferenceState st = m.newState(6);
            List<Integer> chunks = new ArrayList<>();
            // Keep the 2 newest entries of every head whenever a chunk would not fit.
            st.setChunkListener((state, tokens) -> {
                chunks.add(tokens);
                KvCache c = state.kvCache();
                for (int l = 0; l < c.layers(); l++) {
                    for (int h = 0; h < c.kvHeads(); h++) {
                        int len = c.length(l, h);
                        if (len + tokens > state.contextLength()) {
                            c.retain(l, h, new int[] {len - 2, len - 1});
                        }
                    }
                }
            });
            for (int i = 0; i < 20; i++) {
                float[] logits = m.forward(st, new int[] {i % 40}, 0, 1, false);
                assertThat(allFinite(logits)).isTrue();
            }
            assertThat(st.position()).isEqualTo(20);
            assertThat(st.kvCache().maxLength()).isLessThanOrEqualTo(6);
            assertThat(st.kvCache().positions(0, 0)[st.kvCache().length(0, 0) - 1])
                    .isEqualTo(19);
            assertThat(chunks).hasSize(20).containsOnly(1);
        }
    }

    @Test
    void tokenIdsAreChecked() throws IOException {
        try (Model m = load(tiny())) {
            assertThatThrownBy(() -> m.forward(m.newState(8), new int[] {3, 40}, 0, 2, false))
                    .isInstanceOf(JacapException.class)
                    .hasMessage("token id 40 is outside the vocabulary [0, 40)");
        }
    }

    @Test
    void copyAndResetOfStates() throws IOException {
        try (Model m = load(tiny())) {
            int[] ids = {1, 5, 9, 13, 17};
            InferenceState st = m.newState(16);
            m.forward(st, ids, 0, 3, false);
            InferenceState copy = st.copy();
            float[] a = m.forward(st, ids, 3, 2, false);
            float[] b = m.forward(copy, ids, 3, 2, false);
            assertThat(b).containsExactly(a);
            assertThat(copy.position()).isEqualTo(5);
            st.reset();
            assertThat(st.position()).isZero();
            assertThat(st.kvCache().maxLength()).isZero();
            float[] c = m.forward(st, ids, 0, 5, false);
            assertThat(ChunkingTest.maxAbsDiff(c, a)).isLessThan(1e-4);
        }
    }

    @Test
    void statesBelongToTheirModel() throws IOException {
        try (Model a = load(tiny());
                Model b = Model.load(tiny().write(tmp.resolve("b.gguf")), OPTIONS)) {
            InferenceState st = a.newState(8);
            assertThatThrownBy(() -> b.forward(st, new int[] {1}, 0, 1, false))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void closedModelRefusesWork() throws IOException {
        Model m = load(tiny());
        InferenceState st = m.newState(8);
        m.close();
        m.close();
        assertThatThrownBy(() -> m.forward(st, new int[] {1}, 0, 1, false)).isInstanceOf(IllegalStateException.class);
    }
}

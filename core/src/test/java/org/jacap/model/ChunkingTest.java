package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.jacap.simd.Precision;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Prefill in one chunk, in chunks of 3 or 7, and token by token must give the same logits. */
class ChunkingTest {
    /** oracle/README.md's p40 prompt plus ten more ids: 50 positions, past Gemma 3's window of 32. */
    static final int[] PROMPT = {
        1, 317, 269, 274, 287, 263, 377, 267, 265, 282, 295, 433, 426, 342, 394, 261, 370, 352, 266, 268, 388, 269, 391,
        266, 267, 337, 335, 312, 426, 291, 262, 379, 286, 273, 511, 13, 3, 258, 450, 498, 403, 407, 261, 378, 432, 383,
        286, 261, 376, 298
    };
    /** Different chunkings take different matmul paths (tiles vs vector dots): float summation order only. */
    static final double TOLERANCE = 1e-3;

    static float[] allLogits(Model model, int[] prompt, int chunk) {
        InferenceState st = model.newState(prompt.length);
        int vocab = model.config().vocabSize();
        float[] out = new float[prompt.length * vocab];
        for (int off = 0; off < prompt.length; off += chunk) {
            int n = Math.min(chunk, prompt.length - off);
            float[] l = model.forward(st, prompt, off, n, true);
            System.arraycopy(l, 0, out, off * vocab, l.length);
        }
        assertThat(st.position()).isEqualTo(prompt.length);
        // the global layers hold every token (Gemma 3's local layer only its window)
        assertThat(st.kvCache().maxLength()).isEqualTo(prompt.length);
        return out;
    }

    static double maxAbsDiff(float[] a, float[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) {
            m = Math.max(m, Math.abs(a[i] - b[i]));
        }
        return m;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "stories260K.gguf",
                "gemma3-Q8_0.gguf",
                "qwen2-Q4_K_M.gguf",
                "qwen3-F16.gguf",
                "phi3-Q6_K.gguf",
                "llama3rope-Q5_K_M.gguf"
            })
    void chunkSizesAgree(String file) throws IOException {
        try (Model model = Model.load(Fixtures.anyModel(file), new LoadOptions(2, Precision.F32, null))) {
            float[] full = allLogits(model, PROMPT, PROMPT.length);
            for (int chunk : new int[] {1, 3, 7}) {
                assertThat(maxAbsDiff(allLogits(model, PROMPT, chunk), full))
                        .as("%s chunk %d", file, chunk)
                        .isLessThanOrEqualTo(TOLERANCE);
            }
        }
    }

    @Test
    void logitsOfTheLastRowsAreThoseRowsOfAllLogitsAcrossChunks() throws IOException {
        try (Model model = Model.load(Fixtures.anyModel("stories260K.gguf"), new LoadOptions(2, Precision.F32, null))) {
            int vocab = model.config().vocabSize();
            int n = Model.DEFAULT_CHUNK + 8; // two chunks: rows 515.. lie in the second
            int[] tokens = new int[n];
            for (int i = 0; i < n; i++) {
                tokens[i] = PROMPT[i % PROMPT.length];
            }
            float[] all = model.forward(model.newState(n), tokens, 0, n, true);
            for (int first : new int[] {0, 200, Model.DEFAULT_CHUNK - 3, Model.DEFAULT_CHUNK + 3}) {
                float[] tail = model.forwardRows(model.newState(n), tokens, 0, n, first);
                assertThat(tail).hasSize((n - first) * vocab);
                // each logit row is its own products over the same hidden row: equal to the bit
                assertThat(tail)
                        .as("from %d", first)
                        .containsExactly(java.util.Arrays.copyOfRange(all, first * vocab, n * vocab));
            }
            // one row takes the matrix x vector product, as the last-logits pass: float rounding only
            float[] last = model.forwardRows(model.newState(n), tokens, 0, n, n - 1);
            assertThat(last).containsExactly(model.forward(model.newState(n), tokens, 0, n, false));
            assertThat(maxAbsDiff(last, java.util.Arrays.copyOfRange(all, (n - 1) * vocab, n * vocab)))
                    .isLessThanOrEqualTo(1e-4);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> model.forwardRows(model.newState(n), tokens, 0, 4, 4))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("logits from token 4 of 4");
        }
    }

    @Test
    void lastLogitsAreTheLastRowOfAllLogits() throws IOException {
        try (Model model = Model.load(Fixtures.anyModel("stories260K.gguf"), new LoadOptions(2, Precision.F32, null))) {
            int vocab = model.config().vocabSize();
            float[] all = model.forward(model.newState(64), PROMPT, 0, 20, true);
            float[] last = model.forward(model.newState(64), PROMPT, 0, 20, false);
            assertThat(all).hasSize(20 * vocab);
            assertThat(last).hasSize(vocab);
            float[] row = java.util.Arrays.copyOfRange(all, 19 * vocab, 20 * vocab);
            // Same hidden state; the output product runs batched (tiles) or as one row (vector dots).
            assertThat(maxAbsDiff(row, last)).isLessThanOrEqualTo(1e-4);
        }
    }

    @Test
    void inputsLongerThanOneChunkAreSplit() throws IOException {
        int n = Model.DEFAULT_CHUNK + 88;
        int[] prompt = new int[n];
        prompt[0] = 1;
        for (int i = 1; i < n; i++) {
            prompt[i] = PROMPT[1 + (i * 7) % (PROMPT.length - 1)];
        }
        try (Model model = Model.load(Fixtures.anyModel("stories260K.gguf"), new LoadOptions(2, Precision.F32, null))) {
            InferenceState a = model.newState(n);
            float[] one = model.forward(a, prompt, 0, n, false);
            InferenceState b = model.newState(n);
            model.forward(b, prompt, 0, 300, false);
            float[] two = model.forward(b, prompt, 300, n - 300, false);
            assertThat(a.position()).isEqualTo(n);
            assertThat(maxAbsDiff(one, two)).isLessThanOrEqualTo(TOLERANCE);
        }
    }
}

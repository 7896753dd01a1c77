package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.jacap.JacapException;
import org.jacap.gguf.GgmlType;
import org.jacap.tokenizer.Tokenizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that parse as GGUF but describe a model that cannot be right (issue 17): each fails with
 * one {@link JacapException} at load or at the first forward step, never with an OutOfMemoryError,
 * an InternalError or a run of token 0.
 */
class HostileModelTest {
    @TempDir
    Path tmp;

    private static TinyGguf tiny() {
        return TinyGguf.llama(32, 2, 4, 2, 48, 40, 7);
    }

    private Model load(TinyGguf g) throws IOException {
        return Model.load(g.write(tmp.resolve("m.gguf")), ModelLoadTest.OPTIONS);
    }

    @Test
    void aHugeBlockCountFailsBeforeAnythingScalesWithIt() {
        // Before the check, 2^30 blocks built 2^30 layer configurations (GBs) before any tensor lookup.
        for (int blocks : new int[] {100_000_000, 1 << 30, Integer.MAX_VALUE}) {
            TinyGguf g = tiny().put("llama.block_count", blocks);
            assertThatThrownBy(() -> load(g))
                    .isInstanceOf(JacapException.class)
                    .hasMessage("metadata key 'llama.block_count' = " + blocks
                            + " but the file holds tensors for blocks 0 to 1 (2 blocks)");
        }
    }

    @Test
    void aBlockCountBelowTheBlocksPresentIsRefused() {
        TinyGguf g = tiny().put("llama.block_count", 1);
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessage(
                        "metadata key 'llama.block_count' = 1 but the file holds tensors for blocks 0 to 1 (2 blocks)");
    }

    @Test
    void aMissingBlockInTheMiddleIsNamed() {
        TinyGguf g = tiny();
        for (String t : new String[] {
            "attn_norm", "ffn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"
        }) {
            g.removeTensor("blk.0." + t + ".weight");
        }
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessage("missing tensor 'blk.0.attn_norm.weight' (required by architecture 'llama')");
    }

    @Test
    void blockIndexParsing() {
        assertThat(BlockCensus.blockIndex("blk.17.attn_q.weight")).isEqualTo(17);
        assertThat(BlockCensus.blockIndex("blk.x.attn_q.weight")).isEqualTo(-1);
        assertThat(BlockCensus.blockIndex("blk..attn_q")).isEqualTo(-1);
        assertThat(BlockCensus.blockIndex("blk.12345678901.a")).isEqualTo(-1);
        assertThat(BlockCensus.blockIndex("output.weight")).isEqualTo(-1);
    }

    @Test
    void aBadRmsEpsilonIsRefused() {
        for (float eps : new float[] {Float.NaN, -1f, 0f, Float.POSITIVE_INFINITY}) {
            TinyGguf g = tiny().put("llama.attention.layer_norm_rms_epsilon", eps);
            assertThatThrownBy(() -> load(g))
                    .isInstanceOf(JacapException.class)
                    .hasMessage(
                            "metadata key 'llama.attention.layer_norm_rms_epsilon' must be a positive finite number, got "
                                    + eps);
        }
    }

    @Test
    void aBadRopeBaseIsRefused() {
        TinyGguf g = tiny().put("llama.rope.freq_base", Float.NaN);
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("'llama.rope.freq_base' must be a positive finite number, got NaN");
    }

    @Test
    void nonFiniteWeightsStopTheFirstForwardStep() throws IOException {
        for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY}) {
            byte[] norm = new byte[32 * 4];
            ByteBuffer b = ByteBuffer.wrap(norm).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 32; i++) {
                b.putFloat(i == 5 ? bad : 1f);
            }
            TinyGguf g = tiny().raw("blk.1.ffn_norm.weight", GgmlType.F32, norm, 32);
            try (Model m = load(g)) {
                assertThatThrownBy(() -> m.forward(m.newState(8), new int[] {1, 2}, 0, 2, false))
                        .isInstanceOf(JacapException.class)
                        .hasMessageStartingWith("the model computed a non-finite logit (NaN) before position 2: ");
            }
        }
    }

    @Test
    void tokenTypesOrScoresLongerThanTheVocabularyAreRefused() throws IOException {
        int[] types = new int[41];
        Arrays.fill(types, 1);
        try (Model m = load(tiny().put("tokenizer.ggml.token_type", types))) {
            assertThatThrownBy(() -> Tokenizer.fromMetadata(m.metadata()))
                    .isInstanceOf(JacapException.class)
                    .hasMessageContaining("41 token types for 40 tokens");
        }
        try (Model m = load(tiny().put("tokenizer.ggml.scores", new float[41]))) {
            assertThatThrownBy(() -> Tokenizer.fromMetadata(m.metadata()))
                    .isInstanceOf(JacapException.class)
                    .hasMessageContaining("41 scores for 40 tokens");
        }
    }

    @Test
    void aFileTruncatedUnderARunningModelFailsWithAJacapException() throws IOException {
        Path file = tiny().write(tmp.resolve("t.gguf"));
        try (Model m = Model.load(file, ModelLoadTest.OPTIONS)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(4096); // the header stays, the weights are gone: their pages fault (SIGBUS)
            }
            assertThatThrownBy(() -> m.forward(m.newState(8), new int[] {1, 2}, 0, 2, false))
                    .isInstanceOf(JacapException.class)
                    .hasMessage(
                            "model file " + file + " could not be read: was it truncated or replaced while in use?");
        }
    }

    @Test
    void badRopeFactorsOrScalingAreAJacapException() {
        // Found by the model fuzz campaign: these reached the RoPE tables as an IllegalArgumentException.
        byte[] factors = new byte[4 * 4];
        ByteBuffer.wrap(factors)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putFloat(1f)
                .putFloat(-7.5e14f)
                .putFloat(1f)
                .putFloat(1f);
        TinyGguf g = tiny().raw("rope_freqs.weight", GgmlType.F32, factors, 4);
        assertThatThrownBy(() -> load(g))
                .isInstanceOf(JacapException.class)
                .hasMessage("tensor 'rope_freqs.weight' holds -7.5E14 at 1: RoPE frequency factors must be positive and"
                        + " finite");
        TinyGguf scaled = tiny().put("llama.rope.scaling.factor", Float.NaN);
        assertThatThrownBy(() -> load(scaled))
                .isInstanceOf(JacapException.class)
                .hasMessage("metadata key 'llama.rope.scaling.factor' must be a finite number >= 0, got NaN");
    }
}

package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import org.jacap.JacapException;
import org.jacap.gguf.GgufFile;
import org.jacap.simd.RopeLayout;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

class ModelConfigTest {

    private static ModelConfig read(String model) throws IOException {
        try (GgufFile f = GgufFile.open(Fixtures.anyModel(model))) {
            return ModelConfig.fromMetadata(f.metadata());
        }
    }

    @Test
    void stories260K() throws IOException {
        ModelConfig c = read("stories260K.gguf");
        assertThat(c.architecture()).isEqualTo("llama");
        assertThat(c.embeddingLength()).isEqualTo(64);
        assertThat(c.blockCount()).isEqualTo(5);
        assertThat(c.headCount()).isEqualTo(8);
        assertThat(c.headCountKv()).isEqualTo(4);
        assertThat(c.keyLength()).isEqualTo(8);
        assertThat(c.valueLength()).isEqualTo(8);
        assertThat(c.feedForwardLength()).isEqualTo(172);
        assertThat(c.contextLength()).isEqualTo(2048);
        assertThat(c.vocabSize()).isEqualTo(512);
        assertThat(c.rmsNormEps()).isCloseTo(1e-5f, within(1e-9f));
        assertThat(c.ropeBase()).isEqualTo(10000f); // no rope.freq_base key in this file
        assertThat(c.ropeDimension()).isEqualTo(8);
        assertThat(c.embeddingScale()).isEqualTo(1f);
        assertThat(c.activation()).isEqualTo(FfnActivation.SILU);
        assertThat(c.layers()).hasSize(5).allSatisfy(l -> {
            assertThat(l.ropeLayout()).isEqualTo(RopeLayout.NORMAL);
            assertThat(l.isSliding()).isFalse();
            assertThat(l.groupSize()).isEqualTo(2);
            assertThat(l.queryDim()).isEqualTo(64);
            assertThat(l.keyDim()).isEqualTo(32);
            assertThat(l.attentionScale()).isEqualTo((float) (1 / Math.sqrt(8)));
        });
    }

    @Test
    void gemma3InterleavesLocalAndGlobalBlocks() throws IOException {
        ModelConfig c = read("gemma3-Q8_0.gguf");
        assertThat(c.keyLength()).isEqualTo(128);
        assertThat(c.layer(0).queryDim()).isEqualTo(512);
        assertThat(c.embeddingScale()).isEqualTo(16f);
        assertThat(c.activation()).isEqualTo(FfnActivation.GELU_TANH);
        LayerConfig local = c.layer(0);
        LayerConfig global = c.layer(1);
        assertThat(local.slidingWindow()).isEqualTo(32);
        assertThat(local.ropeBase()).isEqualTo(10000f);
        assertThat(global.isSliding()).isFalse();
        assertThat(global.ropeBase()).isEqualTo(1e6f);
        assertThat(global.ropeLayout()).isEqualTo(RopeLayout.NEOX);
        assertThat(global.attentionScale()).isEqualTo((float) (1 / Math.sqrt(128)));
    }

    @Test
    void neoxArchitectures() throws IOException {
        for (String m : new String[] {"qwen2-F16.gguf", "qwen3-F16.gguf", "phi3-F16.gguf"}) {
            ModelConfig c = read(m);
            assertThat(c.ropeLayout()).as(m).isEqualTo(RopeLayout.NEOX);
            assertThat(c.layers()).as(m).noneMatch(LayerConfig::isSliding);
        }
        assertThat(read("phi3-F16.gguf").feedForwardLength()).isEqualTo(512);
        assertThat(read("qwen2-F16.gguf").rmsNormEps()).isCloseTo(1e-6f, within(1e-10f));
        assertThat(read("llama3rope-F16.gguf").ropeBase()).isEqualTo(500000f);
    }

    @Test
    void unknownArchitectureIsNamed() {
        assertThatThrownBy(() -> MetadataBuilder.of("mamba").config())
                .isInstanceOf(JacapException.class)
                .hasMessage("unsupported architecture 'mamba' (supported: llama, qwen2, qwen3, gemma3, phi3)");
    }

    @Test
    void defaultsWhenOptionalKeysAreAbsent() {
        ModelConfig c =
                MetadataBuilder.of("llama").remove(".attention.head_count_kv").config();
        assertThat(c.headCountKv()).isEqualTo(8);
        assertThat(c.keyLength()).isEqualTo(8);
        assertThat(c.ropeDimension()).isEqualTo(8);
        assertThat(c.ropeBase()).isEqualTo(10000f);
        assertThat(c.ropeScaling()).isEqualTo(RopeScaling.NONE);
        assertThat(c.vocabSize()).isEqualTo(100);
    }

    @Test
    void headCountKvMayBeAUniformPerLayerArray() {
        ModelConfig c = MetadataBuilder.of("llama")
                .ints(".attention.head_count_kv", 2, 2, 2, 2, 2, 2, 2, 2)
                .config();
        assertThat(c.headCountKv()).isEqualTo(2);
        assertThatThrownBy(() -> MetadataBuilder.of("llama")
                        .ints(".attention.head_count_kv", 2, 2, 4, 2, 2, 2, 2, 2)
                        .config())
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("llama.attention.head_count_kv")
                .hasMessageContaining("differs per layer")
                .hasMessageContaining("[2, 2, 4, 2, 2, 2, 2, 2]");
    }

    @Test
    void missingRequiredKeyIsNamed() {
        assertThatThrownBy(
                        () -> MetadataBuilder.of("qwen2").remove(".block_count").config())
                .isInstanceOf(JacapException.class)
                .hasMessage("missing metadata key 'qwen2.block_count'");
    }

    @Test
    void headCountsMustDivide() {
        assertThatThrownBy(() -> MetadataBuilder.of("llama")
                        .integer(".attention.head_count_kv", 3)
                        .config())
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("not a multiple");
    }

    @Test
    void gemma3DefaultPatternIsSix() {
        ModelConfig c = MetadataBuilder.of("gemma3")
                .integer(".attention.sliding_window", 512)
                .real(".rope.freq_base", 1e6)
                .config();
        boolean[] expected = {true, true, true, true, true, false, true, true};
        for (int il = 0; il < 8; il++) {
            assertThat(c.layer(il).isSliding()).as("block %d", il).isEqualTo(expected[il]);
            assertThat(c.layer(il).ropeBase()).isEqualTo(expected[il] ? 10000f : 1e6f);
        }
    }

    @Test
    void gemma3PatternAsBoolsAndLocalBase() {
        ModelConfig c = MetadataBuilder.of("gemma3")
                .integer(".attention.sliding_window", 16)
                .bools(".attention.sliding_window_pattern", false, true, false, true, false, true, false, true)
                .real(".rope.freq_base_swa", 5000)
                .config();
        assertThat(c.layer(0).isSliding()).isFalse();
        assertThat(c.layer(1).slidingWindow()).isEqualTo(16);
        assertThat(c.layer(1).ropeBase()).isEqualTo(5000f);
    }

    @Test
    void gemma3WithoutWindowHasOnlyGlobalBlocks() {
        ModelConfig c = MetadataBuilder.of("gemma3").config();
        assertThat(c.layers()).noneMatch(LayerConfig::isSliding);
    }

    @Test
    void linearRopeScalingAppliesToGlobalBlocksOnly() {
        ModelConfig c = MetadataBuilder.of("gemma3")
                .integer(".attention.sliding_window", 512)
                .string(".rope.scaling.type", "linear")
                .real(".rope.scaling.factor", 8)
                .config();
        assertThat(c.ropeScaling().factor()).isEqualTo(8f);
        assertThat(c.layer(5).ropeFreqScale()).isEqualTo(0.125f);
        assertThat(c.layer(0).ropeFreqScale()).isEqualTo(1f);
        ModelConfig none = MetadataBuilder.of("llama")
                .string(".rope.scaling.type", "none")
                .real(".rope.scaling.factor", 8)
                .config();
        assertThat(none.layer(0).ropeFreqScale()).isEqualTo(1f);
    }

    @Test
    void unsupportedRopeScalingIsNamed() {
        assertThatThrownBy(() -> MetadataBuilder.of("qwen2")
                        .string(".rope.scaling.type", "yarn")
                        .real(".rope.scaling.factor", 4)
                        .config())
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("RoPE scaling type 'yarn'");
    }

    @Test
    void mixtureOfExpertsIsRefused() {
        assertThatThrownBy(() ->
                        MetadataBuilder.of("llama").integer(".expert_count", 8).config())
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("mixture-of-experts");
    }

    @Test
    void keyAndValueLengthsComeFromMetadata() {
        ModelConfig c = MetadataBuilder.of("qwen3")
                .integer(".attention.key_length", 16)
                .integer(".attention.value_length", 12)
                .config();
        assertThat(c.layer(0).queryDim()).isEqualTo(128);
        assertThat(c.layer(0).valueDim()).isEqualTo(48);
        assertThat(c.layer(0).attentionOutputDim()).isEqualTo(96);
        assertThat(c.layer(0).attentionScale()).isEqualTo(0.25f);
    }
}

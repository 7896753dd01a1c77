package org.jacap.model;

import org.jacap.model.BlockTensors.AttentionOptions;
import org.jacap.model.BlockTensors.Bias;
import org.jacap.simd.RopeLayout;

/**
 * Llama 2/3 (with {@code rope_freqs} factors), Mistral, SmolLM, TinyLlama: pre-norm blocks,
 * SwiGLU, adjacent-pair RoPE; q/k/v/output biases are taken when present.
 */
final class LlamaArchitecture implements Architecture {
    /** Fine-tunes and converters add q/k/v and output biases; the reference Llama has none. */
    static final AttentionOptions ATTENTION =
            AttentionOptions.PLAIN.withQkvBias(Bias.OPTIONAL).withOutputBias(Bias.OPTIONAL);

    @Override
    public String name() {
        return "llama";
    }

    @Override
    public RopeLayout ropeLayout() {
        return RopeLayout.NORMAL;
    }

    @Override
    public LayerWeights bindLayer(WeightBinder b, LayerConfig l, ModelConfig c) {
        return new LayerWeights(BlockTensors.attention(b, l, c, ATTENTION), BlockTensors.gatedFfn(b, l, c, null));
    }
}

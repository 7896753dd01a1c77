package org.jacap.model;

import org.jacap.model.BlockTensors.AttentionOptions;
import org.jacap.model.BlockTensors.Bias;
import org.jacap.simd.RopeLayout;

/** Qwen2 / Qwen2.5: Llama blocks with q/k/v biases and NeoX RoPE. */
final class Qwen2Architecture implements Architecture {
    /** Biases on q, k and v (always present), none on the output. */
    static final AttentionOptions ATTENTION = AttentionOptions.PLAIN.withQkvBias(Bias.REQUIRED);

    @Override
    public String name() {
        return "qwen2";
    }

    @Override
    public RopeLayout ropeLayout() {
        return RopeLayout.NEOX;
    }

    @Override
    public LayerWeights bindLayer(WeightBinder b, LayerConfig l, ModelConfig c) {
        return new LayerWeights(BlockTensors.attention(b, l, c, ATTENTION), BlockTensors.gatedFfn(b, l, c, null));
    }
}

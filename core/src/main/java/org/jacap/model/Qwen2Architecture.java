package org.jacap.model;

import org.jacap.model.BlockTensors.Bias;
import org.jacap.simd.RopeLayout;

/** Qwen2 / Qwen2.5: Llama blocks with q/k/v biases and NeoX RoPE. */
final class Qwen2Architecture implements Architecture {

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
        return new LayerWeights(
                BlockTensors.attention(b, l, c, Bias.REQUIRED, Bias.NONE, false, false),
                BlockTensors.gatedFfn(b, l, c, null));
    }
}

package org.jacap.model;

import org.jacap.model.BlockTensors.AttentionOptions;
import org.jacap.simd.RopeLayout;

/** Qwen3 (dense): per-head RMSNorm of q and k before NeoX RoPE, no biases. */
final class Qwen3Architecture implements Architecture {
    /** No biases; q and k normed per head. */
    static final AttentionOptions ATTENTION = AttentionOptions.PLAIN.withQkNorm();

    @Override
    public String name() {
        return "qwen3";
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

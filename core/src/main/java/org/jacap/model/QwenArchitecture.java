package org.jacap.model;

import org.jacap.model.BlockTensors.AttentionOptions;
import org.jacap.model.BlockTensors.Bias;
import org.jacap.simd.RopeLayout;

/**
 * Qwen2 / Qwen2.5 and Qwen3 (dense): Llama blocks with NeoX RoPE; the two differ only in their
 * attention tensors ({@link #QWEN2}, {@link #QWEN3}).
 *
 * @param name      {@code general.architecture}
 * @param attention which attention tensors a block has
 */
record QwenArchitecture(String name, AttentionOptions attention) implements Architecture {
    /** Qwen2: biases on q, k and v (always present), none on the output. */
    static final QwenArchitecture QWEN2 =
            new QwenArchitecture("qwen2", AttentionOptions.PLAIN.withQkvBias(Bias.REQUIRED));

    /** Qwen3: no biases; q and k RMS-normed per head before RoPE. */
    static final QwenArchitecture QWEN3 = new QwenArchitecture("qwen3", AttentionOptions.PLAIN.withQkNorm());

    @Override
    public RopeLayout ropeLayout() {
        return RopeLayout.NEOX;
    }

    @Override
    public LayerWeights bindLayer(WeightBinder b, LayerConfig l, ModelConfig c) {
        return new LayerWeights(BlockTensors.attention(b, l, c, attention), BlockTensors.gatedFfn(b, l, c, null));
    }
}

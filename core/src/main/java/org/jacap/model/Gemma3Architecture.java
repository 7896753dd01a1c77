package org.jacap.model;

import java.util.ArrayList;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.gguf.GgufValue;
import org.jacap.model.BlockTensors.AttentionOptions;
import org.jacap.simd.RopeLayout;

/**
 * Gemma 3 (text): embeddings × √n_embd, q/k norms, post-attention and post-FFN norms, GeGLU,
 * NeoX RoPE, and interleaved sliding-window ("local") and global blocks with their own RoPE
 * bases. Norm weights are used as plain multipliers (converters fold Gemma's 1 + w in).
 */
final class Gemma3Architecture implements Architecture {
    /** llama.cpp's defaults when the file has no pattern / local base. */
    static final int DEFAULT_PATTERN = 6;

    static final float DEFAULT_LOCAL_ROPE_BASE = 10000f;

    /**
     * Gemma 3 27B is the one size whose query_pre_attn_scalar is n_embd / n_head instead of the head
     * size; GGUF has no key for it, so llama.cpp (llama_model::load_hparams) recognises 27B by its 62 blocks,
     * and so do we.
     */
    static final int BLOCK_COUNT_27B = 62;

    /** No biases; q and k normed per head, and a norm after attention. */
    static final AttentionOptions ATTENTION =
            AttentionOptions.PLAIN.withQkNorm().withPostNorm();

    @Override
    public String name() {
        return "gemma3";
    }

    @Override
    public RopeLayout ropeLayout() {
        return RopeLayout.NEOX;
    }

    @Override
    public FfnActivation activation() {
        return FfnActivation.GELU_TANH;
    }

    @Override
    public float embeddingScale(int embeddingLength) {
        return (float) Math.sqrt(embeddingLength);
    }

    @Override
    public List<LayerConfig> layers(LayerConfig global, int blockCount, int embeddingLength, ArchMetadata m) {
        int window = m.intOr("attention.sliding_window", 0);
        boolean[] local = localLayers(m, blockCount);
        float localBase = m.floatOr("rope.freq_base_swa", DEFAULT_LOCAL_ROPE_BASE);
        // Gemma 3 27B scales queries by 1/√(n_embd/n_head) (query_pre_attn_scalar), the others by 1/√head_dim.
        float scale = blockCount == BLOCK_COUNT_27B
                ? (float) (1.0 / Math.sqrt((double) embeddingLength / global.headCount()))
                : global.attentionScale();
        List<LayerConfig> out = new ArrayList<>(blockCount);
        for (int il = 0; il < blockCount; il++) {
            boolean isLocal = window > 0 && local[il];
            LayerConfig t = global.withIndex(il)
                    .withSlidingWindow(LayerConfig.FULL_ATTENTION)
                    .withAttentionScale(scale);
            // Local blocks use their own base and never the context scaling.
            out.add(
                    isLocal
                            ? t.withSlidingWindow(window)
                                    .withRopeBase(localBase)
                                    .withRopeFreqScale(1f)
                            : t);
        }
        return out;
    }

    /**
     * {@code attention.sliding_window_pattern}: an integer n (block il is local iff
     * il % n &lt; n − 1; 0 means every block) or one bool per block; default 6.
     */
    static boolean[] localLayers(ArchMetadata m, int blockCount) {
        String key = m.key("attention.sliding_window_pattern");
        boolean[] local = new boolean[blockCount];
        GgufValue v = m.raw().get(key).orElse(null);
        if (v instanceof GgufValue.ArrayValue a) {
            if (a.bools() == null || a.length() != blockCount) {
                throw new JacapException("metadata key '" + key + "' must be an integer or " + blockCount
                        + " bools, got an array of " + a.length() + " " + a.elementType());
            }
            return a.bools().clone();
        }
        int n = v == null ? DEFAULT_PATTERN : m.requireInt("attention.sliding_window_pattern");
        if (n < 0) {
            throw new JacapException("metadata key '" + key + "' must not be negative, got " + n);
        }
        for (int il = 0; il < blockCount; il++) {
            local[il] = n == 0 || il % n < n - 1;
        }
        return local;
    }

    @Override
    public LayerWeights bindLayer(WeightBinder b, LayerConfig l, ModelConfig c) {
        return new LayerWeights(
                BlockTensors.attention(b, l, c, ATTENTION),
                BlockTensors.gatedFfn(b, l, c, BlockTensors.norm(b, l, "post_ffw_norm", c.embeddingLength())));
    }
}

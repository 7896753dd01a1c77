package org.jacap.model;

import org.jacap.simd.WeightMatrix;

/** Binding steps shared by the architectures: the pieces of a standard pre-norm block. */
final class BlockTensors {
    private BlockTensors() {}

    enum Bias {
        NONE,
        OPTIONAL,
        REQUIRED
    }

    static String name(LayerConfig l, String tensor) {
        return WeightBinder.block(l.index(), tensor);
    }

    static float[] norm(WeightBinder b, LayerConfig l, String tensor, int n) {
        return b.vector(name(l, tensor + ".weight"), n);
    }

    static Projection projection(WeightBinder b, LayerConfig l, String tensor, int rows, int cols, Bias bias) {
        WeightMatrix w = b.matrix(name(l, tensor + ".weight"), rows, cols);
        String biasName = name(l, tensor + ".bias");
        float[] bv = switch (bias) {
            case NONE -> null;
            case OPTIONAL -> b.optionalVector(biasName, rows);
            case REQUIRED -> b.vector(biasName, rows);
        };
        return new Projection(w, bv);
    }

    /** {@code ffn_gate}, {@code ffn_up}, {@code ffn_down} as separate matrices. */
    static FeedForwardWeights gatedFfn(WeightBinder b, LayerConfig l, ModelConfig c, float[] postNorm) {
        int e = c.embeddingLength();
        int ff = c.feedForwardLength();
        return new FeedForwardWeights(
                norm(b, l, "ffn_norm", e),
                b.matrix(name(l, "ffn_gate.weight"), ff, e),
                b.matrix(name(l, "ffn_up.weight"), ff, e),
                b.matrix(name(l, "ffn_down.weight"), e, ff),
                postNorm);
    }

    /** Pre-norm attention with separate q/k/v projections. */
    static AttentionWeights attention(
            WeightBinder b,
            LayerConfig l,
            ModelConfig c,
            Bias qkvBias,
            Bias outputBias,
            boolean qkNorm,
            boolean postNorm) {
        int e = c.embeddingLength();
        return new AttentionWeights(
                norm(b, l, "attn_norm", e),
                projection(b, l, "attn_q", l.queryDim(), e, qkvBias),
                projection(b, l, "attn_k", l.keyDim(), e, qkvBias),
                projection(b, l, "attn_v", l.valueDim(), e, qkvBias),
                qkNorm ? norm(b, l, "attn_q_norm", l.keyLength()) : null,
                qkNorm ? norm(b, l, "attn_k_norm", l.keyLength()) : null,
                projection(b, l, "attn_output", e, l.attentionOutputDim(), outputBias),
                postNorm ? norm(b, l, "post_attention_norm", e) : null);
    }
}

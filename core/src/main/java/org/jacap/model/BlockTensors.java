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

    /**
     * The tensors of a block's attention beyond q/k/v/output: start from {@link #PLAIN} and name
     * each addition ({@code PLAIN.withQkNorm()}, {@code PLAIN.withQkvBias(Bias.REQUIRED)}).
     *
     * @param qkvBias    biases of the q, k and v projections
     * @param outputBias bias of the output projection
     * @param qkNorm     per-head RMSNorm of q and k ({@code attn_q_norm}, {@code attn_k_norm})
     * @param postNorm   a norm after attention ({@code post_attention_norm})
     */
    record AttentionOptions(Bias qkvBias, Bias outputBias, boolean qkNorm, boolean postNorm) {
        /** q/k/v/output without biases or extra norms. */
        static final AttentionOptions PLAIN = new AttentionOptions(Bias.NONE, Bias.NONE, false, false);

        AttentionOptions withQkvBias(Bias bias) {
            return new AttentionOptions(bias, outputBias, qkNorm, postNorm);
        }

        AttentionOptions withOutputBias(Bias bias) {
            return new AttentionOptions(qkvBias, bias, qkNorm, postNorm);
        }

        AttentionOptions withQkNorm() {
            return new AttentionOptions(qkvBias, outputBias, true, postNorm);
        }

        AttentionOptions withPostNorm() {
            return new AttentionOptions(qkvBias, outputBias, qkNorm, true);
        }
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
    static AttentionWeights attention(WeightBinder b, LayerConfig l, ModelConfig c, AttentionOptions o) {
        int e = c.embeddingLength();
        return new AttentionWeights(
                norm(b, l, "attn_norm", e),
                projection(b, l, "attn_q", l.queryDim(), e, o.qkvBias()),
                projection(b, l, "attn_k", l.keyDim(), e, o.qkvBias()),
                projection(b, l, "attn_v", l.valueDim(), e, o.qkvBias()),
                o.qkNorm() ? norm(b, l, "attn_q_norm", l.keyLength()) : null,
                o.qkNorm() ? norm(b, l, "attn_k_norm", l.keyLength()) : null,
                projection(b, l, "attn_output", e, l.attentionOutputDim(), o.outputBias()),
                o.postNorm() ? norm(b, l, "post_attention_norm", e) : null);
    }
}

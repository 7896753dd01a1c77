package org.jacap.model;

import org.jacap.simd.RopeLayout;
import org.jacap.simd.WeightMatrix;

/**
 * Phi-3: fused {@code attn_qkv} (rows q | k | v) and fused {@code ffn_up} (rows gate | up), NeoX
 * RoPE. The fused matrices are bound as zero-copy row views, so the forward pass sees ordinary
 * separate projections. Sliding-window metadata is ignored, as llama.cpp does for Phi-3.
 */
final class Phi3Architecture implements Architecture {

    @Override
    public String name() {
        return "phi3";
    }

    @Override
    public RopeLayout ropeLayout() {
        return RopeLayout.NEOX;
    }

    @Override
    public LayerWeights bindLayer(WeightBinder b, LayerConfig l, ModelConfig c) {
        int e = c.embeddingLength();
        int ff = c.feedForwardLength();
        String qkv = BlockTensors.name(l, "attn_qkv.weight");
        if (b.has("rope_factors_long.weight")) {
            throw new org.jacap.JacapException("Phi-3 LongRoPE (rope_factors_long/short) is not supported");
        }
        AttentionWeights attention;
        if (b.has(qkv)) {
            WeightMatrix[] p = b.splitRows(qkv, e, l.queryDim(), l.keyDim(), l.valueDim());
            attention = new AttentionWeights(
                    BlockTensors.norm(b, l, "attn_norm", e),
                    Projection.of(p[0]),
                    Projection.of(p[1]),
                    Projection.of(p[2]),
                    null,
                    null,
                    Projection.of(b.matrix(BlockTensors.name(l, "attn_output.weight"), e, l.attentionOutputDim())),
                    null);
        } else {
            attention = BlockTensors.attention(b, l, c, BlockTensors.AttentionOptions.PLAIN);
        }
        WeightMatrix[] gateUp = b.splitRows(BlockTensors.name(l, "ffn_up.weight"), e, ff, ff);
        FeedForwardWeights ffn = new FeedForwardWeights(
                BlockTensors.norm(b, l, "ffn_norm", e),
                gateUp[0],
                gateUp[1],
                b.matrix(BlockTensors.name(l, "ffn_down.weight"), e, ff),
                null);
        return new LayerWeights(attention, ffn);
    }
}

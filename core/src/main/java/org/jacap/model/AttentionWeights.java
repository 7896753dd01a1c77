package org.jacap.model;

/**
 * One block's attention weights. Optional parts are null: {@code queryNorm}/{@code keyNorm}
 * (per-head RMSNorm before RoPE: Qwen3, Gemma3) and {@code postNorm} (RMSNorm of the attention
 * output before the residual add: Gemma3).
 */
public record AttentionWeights(
        float[] norm,
        Projection query,
        Projection key,
        Projection value,
        float[] queryNorm,
        float[] keyNorm,
        Projection output,
        float[] postNorm) {}

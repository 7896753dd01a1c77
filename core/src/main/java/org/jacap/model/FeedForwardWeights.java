package org.jacap.model;

import org.jacap.simd.WeightMatrix;

/**
 * One block's gated FFN, {@code down(act(gate·x) ⊙ up·x)}; {@code postNorm} (Gemma3) is null
 * when absent.
 */
public record FeedForwardWeights(
        float[] norm, WeightMatrix gate, WeightMatrix up, WeightMatrix down, float[] postNorm) {}

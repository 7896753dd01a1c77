package org.jacap.model;

import org.jacap.simd.RopeLayout;

/**
 * Everything the forward pass needs to know about one block, so that it has no architecture
 * special cases inlined.
 *
 * @param index          block index
 * @param headCount      query heads
 * @param headCountKv    key/value heads (grouped-query attention when fewer than query heads)
 * @param keyLength      head size of queries and keys
 * @param valueLength    head size of values
 * @param ropeDimension  rotated dimensions per head (≤ keyLength; the rest pass through)
 * @param ropeBase       RoPE frequency base of this block
 * @param ropeFreqScale  positions are multiplied by this before rotation (1 / linear scaling factor)
 * @param ropeLayout     which dimensions form rotation pairs
 * @param slidingWindow  0 for full causal attention, else a query at p sees keys at j with p - j < window
 * @param attentionScale multiplier of q·k before the softmax
 */
public record LayerConfig(
        int index,
        int headCount,
        int headCountKv,
        int keyLength,
        int valueLength,
        int ropeDimension,
        float ropeBase,
        float ropeFreqScale,
        RopeLayout ropeLayout,
        int slidingWindow,
        float attentionScale) {

    /** {@link #slidingWindow} of a block that attends to every earlier position. */
    public static final int FULL_ATTENTION = 0;

    /** This block's settings for block {@code index}. */
    public LayerConfig withIndex(int index) {
        return copy(index, ropeBase, ropeFreqScale, slidingWindow, attentionScale);
    }

    /** The same block with a sliding window ({@link #FULL_ATTENTION} for none). */
    public LayerConfig withSlidingWindow(int slidingWindow) {
        return copy(index, ropeBase, ropeFreqScale, slidingWindow, attentionScale);
    }

    /** The same block with another RoPE frequency base. */
    public LayerConfig withRopeBase(float ropeBase) {
        return copy(index, ropeBase, ropeFreqScale, slidingWindow, attentionScale);
    }

    /** The same block with another RoPE position scale. */
    public LayerConfig withRopeFreqScale(float ropeFreqScale) {
        return copy(index, ropeBase, ropeFreqScale, slidingWindow, attentionScale);
    }

    /** The same block with another q·k multiplier. */
    public LayerConfig withAttentionScale(float attentionScale) {
        return copy(index, ropeBase, ropeFreqScale, slidingWindow, attentionScale);
    }

    /** The withers' one copy: the head shape and RoPE layout never change per block. */
    private LayerConfig copy(int index, float ropeBase, float ropeFreqScale, int slidingWindow, float attentionScale) {
        return new LayerConfig(
                index,
                headCount,
                headCountKv,
                keyLength,
                valueLength,
                ropeDimension,
                ropeBase,
                ropeFreqScale,
                ropeLayout,
                slidingWindow,
                attentionScale);
    }

    /** Width of all query heads together. */
    public int queryDim() {
        return headCount * keyLength;
    }

    /** Width of all key heads together. */
    public int keyDim() {
        return headCountKv * keyLength;
    }

    /** Width of all value heads together (also the attention output width). */
    public int valueDim() {
        return headCountKv * valueLength;
    }

    /** Width of the concatenated attention output fed to {@code attn_output}. */
    public int attentionOutputDim() {
        return headCount * valueLength;
    }

    /** Query heads per KV head. */
    public int groupSize() {
        return headCount / headCountKv;
    }

    public boolean isSliding() {
        return slidingWindow > 0;
    }
}

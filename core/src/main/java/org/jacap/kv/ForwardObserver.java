package org.jacap.kv;

/**
 * Watches the forward pass: the statistics an eviction policy needs (query moments, attention
 * weights) are gathered while the model runs instead of by a second pass. All methods have no-op
 * defaults and are called on the thread that called {@code Model.forward}, in layer order and,
 * within a layer, in token order.
 */
public interface ForwardObserver {

    /**
     * The queries of the token at {@code position} in {@code layer}, all query heads
     * ({@code nHeads * headDim} floats): {@code qPre} before RoPE (after q-norm / bias),
     * {@code qPost} after RoPE; neither is scaled by the attention scale.
     */
    default void onQuery(int layer, int position, float[] qPre, int preOff, float[] qPost, int postOff) {}

    /** True when {@link #onAttention} should be called (it costs a serial attention pass). */
    default boolean wantsAttention() {
        return false;
    }

    /**
     * The attention weights of {@code queryHead} at {@code position} in {@code layer}: the softmax
     * over its KV head's current entries {@code 0..len-1} (masked entries have weight 0).
     */
    default void onAttention(int layer, int queryHead, int position, float[] probs, int off, int len) {}

    /**
     * The {@code dropped} oldest entries of {@code kvHead} in sliding-window {@code layer} left the
     * cache (no later query can see them); {@code remaining} entries are left, now at rows
     * {@code 0..remaining-1}. Called before the chunk's own entries are appended.
     */
    default void onEntriesDropped(int layer, int kvHead, int dropped, int remaining) {}

    /** Called after {@code layer} has processed the tokens of a chunk. */
    default void onLayerEnd(int layer, int firstPosition, int tokens) {}
}

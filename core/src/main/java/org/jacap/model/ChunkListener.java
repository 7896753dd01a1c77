package org.jacap.model;

/**
 * Runs before every chunk a forward call appends to a state, so that an eviction controller can
 * make room in the KV cache between chunks. With a listener installed, the context check is done
 * per chunk (cache length + chunk ≤ context) instead of on the whole call up front.
 */
@FunctionalInterface
public interface ChunkListener {
    /** Called with the state about to receive {@code tokens} tokens starting at {@code state.position()}. */
    void beforeChunk(InferenceState state, int tokens);
}

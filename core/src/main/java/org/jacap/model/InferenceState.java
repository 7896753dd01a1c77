package org.jacap.model;

import org.jacap.kv.ForwardObserver;
import org.jacap.kv.KvCache;
import org.jacap.kv.KvCacheTypes;

/**
 * One sequence being evaluated: its KV cache, its next position and its context limit. Cheap to
 * hold and to {@link #copy()}: the forward pass's scratch buffers belong to the model (calls on
 * one model are serialized), not to the state.
 */
public final class InferenceState {
    /** Rows a fresh cache head gets before it first grows. */
    static final int INITIAL_CAPACITY = 256;

    private final ModelConfig config;
    private final int contextLength;
    private final KvCache cache;
    private int position;
    private ForwardObserver observer;
    private ChunkListener chunkListener;

    /**
     * A state whose cache stores keys and values as {@code types}; a sliding-window layer's heads
     * hold at most window − 1 + {@code maxChunk} rows, the others up to {@code contextLength}.
     */
    InferenceState(ModelConfig config, int contextLength, KvCacheTypes types, int maxChunk) {
        this(
                config,
                contextLength,
                new KvCache(
                        config.blockCount(),
                        config.headCountKv(),
                        config.keyLength(),
                        config.valueLength(),
                        Math.min(contextLength, INITIAL_CAPACITY),
                        contextLength,
                        types,
                        windowRows(config, maxChunk)),
                0);
    }

    private static int[] windowRows(ModelConfig config, int maxChunk) {
        int[] rows = new int[config.blockCount()];
        for (LayerConfig l : config.layers()) {
            if (l.isSliding()) {
                rows[l.index()] = Math.toIntExact(l.slidingWindow() - 1L + maxChunk);
            }
        }
        return rows;
    }

    private InferenceState(ModelConfig config, int contextLength, KvCache cache, int position) {
        this.config = config;
        this.contextLength = contextLength;
        this.cache = cache;
        this.position = position;
    }

    ModelConfig config() {
        return config;
    }

    /** The position the next token will get (the number of tokens evaluated so far, evicted ones included). */
    public int position() {
        return position;
    }

    void advance(int tokens) {
        position += tokens;
    }

    /** The most entries a KV head of a global-attention layer may hold. */
    public int contextLength() {
        return contextLength;
    }

    public KvCache kvCache() {
        return cache;
    }

    public ForwardObserver observer() {
        return observer;
    }

    /** Installs (or with null removes) the observer of this state's forward passes. */
    public void setObserver(ForwardObserver observer) {
        this.observer = observer;
    }

    public ChunkListener chunkListener() {
        return chunkListener;
    }

    /** Installs (or with null removes) the hook run before every chunk; see {@link ChunkListener}. */
    public void setChunkListener(ChunkListener chunkListener) {
        this.chunkListener = chunkListener;
    }

    /** A deep copy of the cache and position (observer and chunk listener are not copied). */
    public InferenceState copy() {
        return new InferenceState(config, contextLength, cache.copy(), position);
    }

    /** Forgets every token: empty cache, position 0. */
    public void reset() {
        cache.clear();
        position = 0;
    }
}

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

    /**
     * Goes back to {@code newPosition}, dropping the entries of later positions, when every head
     * still holds all of positions [0, newPosition) (no eviction, no sliding window dropped them);
     * returns false and changes nothing otherwise.
     */
    public boolean rewind(int newPosition) {
        if (newPosition < 0 || newPosition > position) {
            return false;
        }
        for (int l = 0; l < cache.layers(); l++) {
            for (int h = 0; h < cache.kvHeads(); h++) {
                int[] positions = cache.positions(l, h);
                int length = cache.length(l, h);
                if (length < newPosition) {
                    return false;
                }
                for (int i = 0; i < newPosition; i++) {
                    if (positions[i] != i) {
                        return false;
                    }
                }
            }
        }
        int[] kept = new int[newPosition];
        for (int i = 0; i < newPosition; i++) {
            kept[i] = i;
        }
        for (int l = 0; l < cache.layers(); l++) {
            for (int h = 0; h < cache.kvHeads(); h++) {
                cache.retain(l, h, kept);
            }
        }
        position = newPosition;
        return true;
    }

    /**
     * Moves the next position to {@code position} without evaluating anything: for a rewound or
     * restored cache, whose entries must then all lie below it.
     */
    public void setPosition(int position) {
        if (position < 0) {
            throw new IllegalArgumentException("position must be >= 0 (got " + position + ")");
        }
        this.position = position;
    }

    /** Forgets every token: empty cache, position 0. */
    public void reset() {
        cache.clear();
        position = 0;
    }
}

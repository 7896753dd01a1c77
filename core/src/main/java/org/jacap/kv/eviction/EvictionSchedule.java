package org.jacap.kv.eviction;

import org.jacap.JacapException;
import org.jacap.kv.KvCache;
import org.jacap.kv.KvCacheTypes;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;

/**
 * When eviction runs while a model evaluates text, for one {@link InferenceState}:
 * <ul>
 *   <li><b>prompt compression</b>: after a prompt, every layer is compressed to
 *       {@link EvictionSettings#promptBudget()} (ratio, budget, or the smaller of both);</li>
 *   <li><b>long prompts</b> (with a budget): evaluated in chunks that fit the cache; before a chunk
 *       that would not fit, every layer is compressed to the budget, so after the first full
 *       cache the chunk size is the slack;</li>
 *   <li><b>budgeted decoding</b>: once {@code slack} tokens were appended since the last event and a
 *       head holds more than the budget (for the uniform allocator: a head would pass
 *       budget + slack), every layer is re-scored and cut back to the budget, with the query
 *       moments of the last ≤ {@code momentWindow} queries (DecodingPress).</li>
 * </ul>
 * With a budget the cache is allocated for {@link EvictionSettings#headCapacity} entries per head
 * ({@link #newState}) and never grows past it; positions continue up to {@code positionLimit}.
 * Without one (ratio only) decoding appends to a cache bounded by the state's context length.
 *
 * <p>Statistics come from an {@link EvictionObserver} this schedule installs on the state (only
 * when the policy needs any). Eviction time is kept apart from the forward pass:
 * {@link #scoringNanos()}.
 */
public final class EvictionSchedule {
    private final Model model;
    private final InferenceState state;
    private final EvictionSettings settings;
    private final EvictionObserver observer;
    private final KvCompressor compressor;
    private final int headCapacity;
    private final long positionLimit;
    private final int[] single = new int[1];
    private int sinceEvent;
    private boolean inPrompt;
    /** Entries the longest head would hold had this prompt's chunk events not evicted. */
    private long promptUncompressed;
    /** Tokens of the current prompt evaluated so far. */
    private long promptEvaluated;

    private long promptEvents;
    private long decodeEvents;
    private long promptNanos;
    private long decodeNanos;
    private int peakHeadLength;
    private CompressionResult lastPrompt;

    /**
     * @param positionLimit the largest position count the state may reach (the {@code --ctx});
     *                      with a budget this may far exceed the cache's capacity
     */
    public EvictionSchedule(Model model, InferenceState state, EvictionSettings settings, long positionLimit) {
        this.model = model;
        this.state = state;
        this.settings = settings;
        this.positionLimit = positionLimit;
        this.compressor = KvCompressor.forModel(model, settings.policy());
        StatisticsSpec spec = settings.policy().statistics();
        this.observer = spec.needs().isEmpty()
                ? null
                : new EvictionObserver(
                        KvCompressor.shapes(model), spec, settings.bounded() ? settings.momentWindow() : 0);
        state.setObserver(observer);
        if (settings.bounded()) {
            this.headCapacity = settings.headCapacity(model.config().headCountKv());
            if (state.contextLength() < headCapacity) {
                throw new JacapException("the inference state holds " + state.contextLength()
                        + " entries per head, the eviction budget needs " + headCapacity
                        + ": create it with EvictionSchedule.newState");
            }
        } else {
            this.headCapacity = state.contextLength();
        }
        this.peakHeadLength = state.kvCache().maxLength();
    }

    /**
     * A state sized for {@code settings}: with a budget, each KV head is allocated for at most
     * budget + slack entries (the allocator's largest share, see {@link BudgetAllocator#maxKeptPerHead});
     * without one, for {@code contextLength} entries.
     */
    public static InferenceState newState(Model model, EvictionSettings settings, int contextLength) {
        return newState(model, settings, contextLength, KvCacheTypes.F32);
    }

    /** The same with keys and values stored as {@code types}. */
    public static InferenceState newState(
            Model model, EvictionSettings settings, int contextLength, KvCacheTypes types) {
        return model.newState(
                settings.bounded() ? settings.headCapacity(model.config().headCountKv()) : contextLength, types);
    }

    // ---- evaluation ----

    /** Evaluates a whole prompt, then compresses it; returns the last token's logits. */
    public float[] prompt(int[] tokens, int off, int len) {
        float[] logits = promptPart(tokens, off, len);
        endPrompt();
        return logits;
    }

    /**
     * Evaluates part of a prompt (callers that feed a long prompt in pieces); call
     * {@link #endPrompt()} after the last part. Returns the last token's logits.
     */
    public float[] promptPart(int[] tokens, int off, int len) {
        if (!inPrompt) {
            inPrompt = true;
            promptUncompressed = state.kvCache().maxLength();
            promptEvaluated = 0;
            if (observer != null) {
                observer.restartMoments(); // the prompt's own queries are its observation set
                observer.gatherMomentsIncrementally(true);
            }
        }
        promptUncompressed += len;
        return evaluate(tokens, off, len, false, false);
    }

    /** Compresses every layer to the prompt budget; a no-op outside a prompt. */
    public CompressionResult endPrompt() {
        if (!inPrompt) {
            return lastPrompt;
        }
        inPrompt = false;
        lastPrompt = compressor.compress(
                state.kvCache(), observer, state.position(), settings.promptBudget(promptUncompressed));
        promptNanos += lastPrompt.scoringNanos();
        promptEvents++;
        sinceEvent = 0;
        if (observer != null && observer.momentWindow() > 0) {
            observer.gatherMomentsIncrementally(false); // decoding events replay the moment window
        }
        return lastPrompt;
    }

    /** Evaluates one generated token (with a decoding event first when one is due); returns its logits. */
    public float[] decode(int token) {
        single[0] = token;
        return decode(single, 0, 1, false);
    }

    /**
     * Evaluates generated or teacher-forced tokens one budget check at a time; logits of the last
     * token, or of every token with {@code allLogits} ({@code [len * vocab]}).
     */
    public float[] decode(int[] tokens, int off, int len, boolean allLogits) {
        if (inPrompt) {
            endPrompt();
        }
        return evaluate(tokens, off, len, allLogits, true);
    }

    private float[] evaluate(int[] tokens, int off, int len, boolean allLogits, boolean decoding) {
        if (len <= 0) {
            throw new JacapException("nothing to evaluate");
        }
        if (state.position() + (long) len > positionLimit) {
            throw new JacapException("context full: position " + state.position() + " + " + len
                    + " tokens would pass the context of " + positionLimit + " positions");
        }
        if (!settings.bounded()) {
            float[] logits = model.forward(state, tokens, off, len, allLogits);
            track(len);
            return logits;
        }
        int vocab = model.config().vocabSize();
        float[] all = allLogits ? new float[Math.multiplyExact(len, vocab)] : null;
        float[] last = null;
        for (int done = 0; done < len; ) {
            int remaining = len - done;
            // Decoding: at most up to the next event, so teacher-forced chunks evict exactly where
            // token-by-token decoding would (a batch is the same computation as its tokens in turn).
            int step = decoding ? Math.max(1, settings.slack() - sinceEvent) : Model.DEFAULT_CHUNK;
            if (eventDue(Math.min(remaining, Math.min(step, settings.slack())))) {
                // A prompt that opens on a full cache has no queries of its own yet: that event
                // scores like a decoding one, with the recent queries, and the prompt's set restarts.
                boolean opening = !decoding && promptEvaluated == 0;
                event(decoding || opening, decoding);
                if (opening && observer != null) {
                    observer.restartMoments();
                }
            }
            step = decoding ? Math.max(1, settings.slack() - sinceEvent) : Model.DEFAULT_CHUNK;
            int room = headCapacity - state.kvCache().maxLength();
            int n = Math.min(Math.min(remaining, room), step);
            last = model.forward(state, tokens, off + done, n, allLogits);
            if (allLogits) {
                System.arraycopy(last, 0, all, done * vocab, n * vocab);
            }
            if (!decoding) {
                promptEvaluated += n;
            }
            track(n);
            done += n;
        }
        return allLogits ? all : last;
    }

    /** A head would outgrow its capacity, or slack tokens arrived and a head holds more than the budget. */
    private boolean eventDue(int incoming) {
        KvCache cache = state.kvCache();
        if (cache.maxLength() + incoming > headCapacity) {
            return true;
        }
        if (sinceEvent + incoming <= settings.slack()) {
            return false;
        }
        return cache.maxLength() > settings.budget();
    }

    /** Compresses every layer to the budget; {@code windowed}: moments of the last queries. */
    private void event(boolean windowed, boolean decoding) {
        long before = compressor.scoringNanos();
        KvCache cache = state.kvCache();
        // R̄ starts at the true absolute position. kvpress's DecodingPress averages over
        // [buffer_len, buffer_len + 512) instead, the position inside its buffer (spec §1.4).
        long position = state.position();
        for (int l = 0; l < cache.layers(); l++) {
            QueryStatistics stats = observer == null ? null : observer.statistics(l);
            if (windowed && observer != null && overBudget(cache, l)) {
                observer.useRecentQueriesForMoments(l);
            }
            compressor.compressLayer(cache, l, stats, position, settings.decodeBudget());
        }
        long spent = compressor.scoringNanos() - before;
        if (decoding) {
            decodeEvents++;
            decodeNanos += spent;
        } else {
            promptEvents++;
            promptNanos += spent;
        }
        sinceEvent = 0;
    }

    private boolean overBudget(KvCache cache, int layer) {
        for (int g = 0; g < cache.kvHeads(); g++) {
            if (cache.length(layer, g) > settings.budget()) {
                return true;
            }
        }
        return false;
    }

    private void track(int tokens) {
        sinceEvent += tokens;
        peakHeadLength = Math.max(peakHeadLength, state.kvCache().maxLength());
    }

    /** Forgets everything: empty cache, position 0, fresh statistics (counters and times stay). */
    public void reset() {
        state.reset();
        if (observer != null) {
            observer.clear();
        }
        inPrompt = false;
        sinceEvent = 0;
        peakHeadLength = 0;
    }

    // ---- reporting ----

    public EvictionSettings settings() {
        return settings;
    }

    public InferenceState state() {
        return state;
    }

    /** The installed observer, or null when the policy needs no statistics. */
    public EvictionObserver observer() {
        return observer;
    }

    /** Time in eviction events (snapshot copy, scoring, compaction), apart from the forward pass. */
    public long scoringNanos() {
        return compressor.scoringNanos();
    }

    /** Of {@link #scoringNanos()}: the part spent in prompt events (chunks and the final compression). */
    public long promptScoringNanos() {
        return promptNanos;
    }

    /** Of {@link #scoringNanos()}: the part spent in decoding events. */
    public long decodeScoringNanos() {
        return decodeNanos;
    }

    public long promptEvents() {
        return promptEvents;
    }

    public long decodeEvents() {
        return decodeEvents;
    }

    public long entriesEvicted() {
        return compressor.entriesEvicted();
    }

    /** The most entries any head held at once (after any forward call). */
    public int peakHeadLength() {
        return peakHeadLength;
    }

    /** The most entries a head may hold (budget + slack, or the state's context when unbounded). */
    public int headCapacity() {
        return headCapacity;
    }

    /** The last prompt compression, or null before the first. */
    public CompressionResult lastPromptCompression() {
        return lastPrompt;
    }

    /** Entries in the cache now, over all layers and KV heads. */
    public long entriesInUse() {
        return state.kvCache().entries();
    }

    /** Whether positions have gone past the model's trained context (quality may degrade there). */
    public boolean beyondTrainedContext() {
        return state.position() > model.config().contextLength();
    }
}

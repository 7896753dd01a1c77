package org.jacap.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jacap.JacapException;
import org.jacap.kv.eviction.EvictionSchedule;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;
import org.jacap.sampling.Sampler;
import org.jacap.tokenizer.ChatMessage;
import org.jacap.tokenizer.ChatTemplate;
import org.jacap.tokenizer.Tokenizer;

/**
 * One conversation: its own KV cache and the tokens in it. Each call appends to what is already
 * there, so only new tokens are evaluated; {@link #reset()} starts over.
 *
 * <p>Two ways to talk to the model, one per session until {@link #reset()}:
 * <ul>
 *   <li>{@link #generate(String, GenerationOptions, TokenListener) generate}: raw text completion;
 *       the prompt continues the session's text (BOS only at the very start).</li>
 *   <li>{@link #chat(String, GenerationOptions, TokenListener) chat}: a user message rendered with
 *       the model's chat template; the session keeps the history.</li>
 * </ul>
 * A generation's tokens stay in the session, except a final end-of-generation token.
 *
 * <p>Not thread-safe: one generation at a time; cancel from elsewhere with a
 * {@link CancellationToken}. Sessions of one engine may run on different threads.
 */
public final class Session implements AutoCloseable {
    private final Engine engine;
    private final Model model;
    private final Tokenizer tokenizer;
    private final SessionOptions options;
    private final int contextLength;
    private final InferenceState state;
    /** When eviction runs ({@link EvictionMode.Evict}); null without a policy. */
    private final EvictionSchedule eviction;
    /** Positions the session may reach: the context, or with eviction the explicit one (else unlimited). */
    private final long positionLimit;
    /** The conversation's tokens; [0, state.position()) are in the KV cache, the rest await evaluation. */
    private final TokenBuffer tokens = new TokenBuffer();

    private final List<ChatMessage> messages = new ArrayList<>();
    private boolean holdsRawText;
    private Generation running;
    private boolean closed;

    Session(Engine engine, SessionOptions options) {
        this.engine = engine;
        this.model = engine.model();
        this.tokenizer = engine.tokenizer();
        this.options = options;
        this.contextLength = options.contextLength() == 0 ? engine.config().contextLength() : options.contextLength();
        if (options.eviction() instanceof EvictionMode.Evict e) {
            // The cache is sized for the budget; positions run on to an explicit context, else without limit.
            this.positionLimit = options.contextLength() == 0 ? Integer.MAX_VALUE : options.contextLength();
            this.state = EvictionSchedule.newState(model, e.settings(), contextLength, options.cacheTypes());
            this.eviction = new EvictionSchedule(model, state, e.settings(), positionLimit);
        } else {
            this.positionLimit = contextLength;
            this.state = model.newState(contextLength, options.cacheTypes());
            this.eviction = null;
        }
        startHistory();
    }

    // ---- raw completion -------------------------------------------------------------------

    /** Generates a continuation of the session's text followed by {@code prompt}, streaming to {@code listener}. */
    public GenerationResult generate(String prompt, GenerationOptions options, TokenListener listener) {
        return start(prompt, options).runTo(listener);
    }

    /** Same with a prompt given as token ids (used as they are: no BOS is added). */
    public GenerationResult generate(int[] promptIds, GenerationOptions options, TokenListener listener) {
        return start(promptIds, options).runTo(listener);
    }

    /** Starts a generation to be pulled token by token (close it to stop early). */
    public Generation start(String prompt, GenerationOptions options) {
        ensureOpen();
        boolean bos = options.addBos() && tokens.size() == 0 && tokenizer.addBosByDefault();
        return start(tokenizer.encode(prompt, bos, options.specialTokens()), options);
    }

    public Generation start(int[] promptIds, GenerationOptions options) {
        ensureOpen();
        int vocab = tokenizer.vocabSize();
        for (int id : promptIds) {
            if (id < 0 || id >= vocab) {
                throw new JacapException("token id " + id + " is outside the vocabulary [0, " + vocab + ")");
            }
        }
        Generation g = begin(promptIds.clone(), false, options, options.stopStrings(), null);
        holdsRawText = true;
        return g;
    }

    /** The generation as a lazy stream of tokens; closing the stream stops it. */
    public Stream<TokenEvent> stream(String prompt, GenerationOptions options) {
        return asStream(start(prompt, options));
    }

    // ---- chat -----------------------------------------------------------------------------

    /** Adds a user message, generates the assistant's reply with the chat template, and keeps both. */
    public GenerationResult chat(String userMessage, GenerationOptions options, TokenListener listener) {
        return startChat(userMessage, options).runTo(listener);
    }

    public Stream<TokenEvent> streamChat(String userMessage, GenerationOptions options) {
        return asStream(startChat(userMessage, options));
    }

    public Generation startChat(String userMessage, GenerationOptions options) {
        ensureOpen();
        if (holdsRawText) {
            throw new IllegalStateException("this session holds raw generate() text: reset() it before chat()");
        }
        ChatTemplate template = engine.chatTemplate();
        ChatMessage user = new ChatMessage("user", userMessage);
        List<ChatMessage> next = new ArrayList<>(messages);
        next.add(user);
        String rendered = template.render(next, true);
        int[] ids = null;
        if (tokens.size() > 0) {
            // Only the text the new message adds is tokenized; the reply stays as it was generated.
            String before = template.render(messages, false);
            if (rendered.startsWith(before)) {
                ids = tokenizer.encode(rendered.substring(before.length()), false, true);
            }
        }
        boolean restart = ids == null && tokens.size() > 0; // the template rewrote earlier turns
        if (ids == null) {
            boolean bos = options.addBos() && tokenizer.addBosByDefault() && !startsWithBosText(rendered);
            ids = tokenizer.encode(rendered, bos, true);
        }
        List<String> stops = new ArrayList<>(options.stopStrings());
        stops.addAll(template.stopStrings());
        return begin(ids, restart, options, stops, result -> {
            messages.add(user);
            messages.add(new ChatMessage("assistant", result.text()));
        });
    }

    /** The chat so far (system message first, when there is one). */
    public List<ChatMessage> history() {
        return List.copyOf(messages);
    }

    // ---- state ----------------------------------------------------------------------------

    /** Every token of the conversation so far, prompt and generated. */
    public int[] tokens() {
        return tokens.toArray();
    }

    /** Tokens already evaluated into the KV cache (a later call reuses them). */
    public int cachedTokens() {
        return state.position();
    }

    public int contextLength() {
        return contextLength;
    }

    public SessionOptions options() {
        return options;
    }

    /** What the KV cache holds now and what eviction did so far. */
    public KvCacheStats kvCacheStats() {
        var cache = state.kvCache();
        long entries = 0;
        for (int l = 0; l < cache.layers(); l++) {
            for (int g = 0; g < cache.kvHeads(); g++) {
                entries += cache.length(l, g);
            }
        }
        if (eviction == null) {
            return new KvCacheStats(
                    "none",
                    cache.types().describe(),
                    entries,
                    cache.maxLength(),
                    cache.bytesInUse(),
                    cache.bytesAllocated(),
                    0,
                    0,
                    0,
                    0,
                    0);
        }
        return new KvCacheStats(
                eviction.settings().describe(),
                cache.types().describe(),
                entries,
                eviction.peakHeadLength(),
                cache.bytesInUse(),
                cache.bytesAllocated(),
                eviction.promptScoringNanos(),
                eviction.decodeScoringNanos(),
                eviction.promptEvents(),
                eviction.decodeEvents(),
                eviction.entriesEvicted());
    }

    /** Forgets the conversation (the system prompt stays); the KV cache is emptied. */
    public void reset() {
        ensureOpen();
        if (running != null) {
            throw new IllegalStateException("cannot reset while generating: close the running generation first");
        }
        clearCache();
        startHistory();
    }

    /** Stops a running generation; the session cannot be used afterwards. */
    @Override
    public void close() {
        if (running != null) {
            running.cancel();
        }
        closed = true;
    }

    // ---- used by Generation ---------------------------------------------------------------

    Tokenizer tokenizer() {
        return tokenizer;
    }

    /** Evaluates the tokens that are not yet in the cache, at most {@code max} of them; returns the last logits. */
    float[] evaluatePending(int max) {
        int from = state.position();
        int len = Math.min(max, tokens.size() - from);
        if (eviction != null) {
            return eviction.promptPart(tokens.array(), from, len);
        }
        return model.forward(state, tokens.array(), from, len, false);
    }

    /** The prompt is in the cache: an eviction policy compresses it now. */
    void promptEvaluated() {
        if (eviction != null) {
            eviction.endPrompt();
        }
    }

    /** Evaluates the token sampled last (a budgeted cache may evict first); returns its logits. */
    float[] evaluateSampled() {
        if (eviction != null) {
            return eviction.decode(tokens.get(state.position()));
        }
        return evaluatePending(1);
    }

    int pendingTokens() {
        return tokens.size() - state.position();
    }

    void append(int token) {
        tokens.add(token);
    }

    void ended(Generation g) {
        if (running == g) {
            running = null;
        }
    }

    /** After a failed forward pass the cache may be half-written: start the tokens over (chat history stays). */
    void discardCache() {
        clearCache();
    }

    // ---- internals ------------------------------------------------------------------------

    private Generation begin(
            int[] newIds,
            boolean restart,
            GenerationOptions options,
            List<String> stops,
            Consumer<GenerationResult> onFinish) {
        if (running != null) {
            throw new IllegalStateException(
                    "this session is already generating: finish or close that generation first");
        }
        int held = restart ? 0 : tokens.size();
        long total = (long) held + newIds.length;
        if (total == 0) {
            throw new JacapException("the prompt is empty: there is nothing to generate from");
        }
        if (total + options.maxTokens() > positionLimit) {
            String prompt = held == 0
                    ? "prompt of " + newIds.length + " tokens"
                    : total + " tokens (" + held + " in the session + " + newIds.length + " new)";
            throw new JacapException("context overflow: " + prompt + " + " + options.maxTokens()
                    + " requested > context of " + positionLimit + " tokens");
        }
        if (!restart && newIds.length == 0 && pendingTokens() == 0) {
            throw new JacapException("the prompt is empty and the session has nothing left to evaluate");
        }
        if (restart) {
            clearCache();
        }
        tokens.addAll(newIds);
        Sampler sampler = Sampler.fromConfig(options.sampler(), tokenizer.vocabSize(), contextLength);
        for (int i = Math.max(0, tokens.size() - sampler.historyCapacity()); i < tokens.size(); i++) {
            sampler.accept(tokens.get(i)); // the repetition penalty sees the prompt, as in llama.cpp
        }
        running = new Generation(this, options, sampler, stops, onFinish);
        return running;
    }

    private boolean startsWithBosText(String text) {
        int bos = tokenizer.bosId();
        return bos >= 0 && text.startsWith(tokenizer.piece(bos));
    }

    private void clearCache() {
        if (eviction != null) {
            eviction.reset();
        }
        state.reset();
        tokens.clear();
    }

    private void startHistory() {
        messages.clear();
        holdsRawText = false;
        if (options.systemPrompt() != null) {
            messages.add(new ChatMessage("system", options.systemPrompt()));
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("session is closed");
        }
    }

    private static Stream<TokenEvent> asStream(Generation g) {
        return StreamSupport.stream(
                        Spliterators.spliteratorUnknownSize(g, Spliterator.ORDERED | Spliterator.NONNULL), false)
                .onClose(g::close);
    }
}

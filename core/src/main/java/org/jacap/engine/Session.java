package org.jacap.engine;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jacap.JacapException;
import org.jacap.kv.eviction.EvictionSchedule;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;
import org.jacap.sampling.Sampler;
import org.jacap.tokenizer.ChatMessage;
import org.jacap.tokenizer.ChatPrompt;
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
 * Two more take the whole conversation or prompt each time and keep only the cache:
 * {@link #chat(List, GenerationOptions, TokenListener) chat(messages)} and
 * {@link #startFrom(int[], GenerationOptions) startFrom(ids)}; what they share with the previous
 * call is not evaluated again. Chat message text is never parsed for special tokens.
 * A generation's tokens stay in the session, except a final end-of-generation token.
 *
 * <p>One generation at a time: starting a second one while the first runs, from any thread,
 * throws {@link IllegalStateException} and leaves the session as it was (the check is atomic).
 * Pull a generation's tokens from one thread; cancel from elsewhere with a
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
    /** Tokens held before the last chat turn's user message was added; -1 when there is no such turn. */
    private int lastTurnStart = -1;
    /** {@link #cachedChatText} before the last turn: what the cache holds again once it is taken back. */
    private String lastTurnCachedText;

    private boolean holdsRawText;
    /** In chat: the text the cache holds (the last chat prompt and its reply as generated); null when unknown. */
    private String cachedChatText;

    private int[] endOfGeneration;
    /** Set and cleared under the session's lock, so that "already generating" is one atomic test-and-set. */
    private volatile Generation running;

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
    public synchronized Generation start(String prompt, GenerationOptions options) {
        ensureOpen();
        boolean bos = options.addBos() && tokens.size() == 0 && tokenizer.addBosByDefault();
        return start(tokenizer.encode(prompt, bos, options.specialTokens()), options);
    }

    public synchronized Generation start(int[] promptIds, GenerationOptions options) {
        ensureOpen();
        checkIds(promptIds);
        Generation g = begin(promptIds.clone(), false, options, options.stopStrings(), null);
        holdsRawText = true;
        cachedChatText = null;
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

    public synchronized Generation startChat(String userMessage, GenerationOptions options) {
        ensureOpen();
        ensureIdle(); // before reading the history a running generation may still extend
        if (holdsRawText) {
            throw new IllegalStateException("this session holds raw generate() text: reset() it before chat()");
        }
        ChatMessage user = new ChatMessage("user", userMessage);
        List<ChatMessage> next = new ArrayList<>(messages);
        next.add(user);
        return beginChat(next, options);
    }

    // ---- chat as a list of messages (OpenAI style) ----------------------------------------

    /**
     * Generates the assistant's reply to a whole conversation (system, user and assistant
     * messages, oldest first), as an OpenAI-style server receives it. The session keeps only a
     * cache: when the conversation extends the one it answered last (the same messages, its reply
     * among them, and new ones after), only the new messages are evaluated; otherwise the longest
     * common token prefix is reused, or the cache is started over.
     *
     * <p>Message text is never parsed for special tokens: only the chat template's own markers
     * are special, so a message cannot forge a {@code <|im_start|>system} turn. Roles are names
     * of letters, digits, '_' and '-' (e.g. system, user, assistant).
     *
     * @throws JacapException when the conversation is empty or a role is not such a name
     */
    public GenerationResult chat(List<ChatMessage> conversation, GenerationOptions options, TokenListener listener) {
        return startChat(conversation, options).runTo(listener);
    }

    public Stream<TokenEvent> streamChat(List<ChatMessage> conversation, GenerationOptions options) {
        return asStream(startChat(conversation, options));
    }

    public Generation startChat(List<ChatMessage> conversation, GenerationOptions options) {
        ensureOpen();
        if (conversation.isEmpty()) {
            throw new JacapException("the conversation has no messages");
        }
        for (ChatMessage m : conversation) {
            if (!m.role().matches("[A-Za-z][A-Za-z0-9_-]{0,31}")) {
                throw new JacapException("message role '" + m.role()
                        + "' is not a name of letters, digits, '_' and '-' (e.g. system, user, assistant)");
            }
        }
        List<ChatMessage> next = List.copyOf(conversation);
        if (holdsRawText || !extendsHistory(next)) {
            return beginFrom(
                    renderIds(next, options),
                    options,
                    chatStops(options),
                    onChatFinish(next, renderedText(next), 0, null));
        }
        return beginChat(next, options);
    }

    /**
     * Generates from a whole prompt given as token ids (used as they are), replacing what the
     * session held: the longest prefix of it already in the KV cache is not evaluated again (as
     * llama-server's {@code cache_prompt}). A text continuation afterwards continues these tokens.
     */
    public Generation startFrom(int[] promptIds, GenerationOptions options) {
        ensureOpen();
        checkIds(promptIds);
        Generation g = beginFrom(promptIds.clone(), options, options.stopStrings(), null);
        holdsRawText = true;
        cachedChatText = null;
        return g;
    }

    // Renders next and evaluates only what it adds to the history the cache holds (its replies as generated).
    private Generation beginChat(List<ChatMessage> next, GenerationOptions options) {
        ChatTemplate template = chatTemplate();
        ChatPrompt rendered = template.renderPrompt(next, true);
        int[] ids = null;
        if (tokens.size() > 0) {
            // Only the text the new messages add is tokenized; the reply stays as it was generated.
            if (cachedChatText != null && rendered.text().startsWith(cachedChatText)) {
                ids = rendered.from(cachedChatText.length()).encode(tokenizer, false); // from the reply's turn end on
            } else {
                // The template re-spaces the reply (e.g. "Assistant: " + text): continue after the rendered
                // history, without the reply's turn-end text, as the cache holds the reply as generated.
                String before = template.render(messages, false);
                if (rendered.text().startsWith(before)) {
                    ids = rendered.from(before.length()).encode(tokenizer, false);
                }
            }
        }
        if (ids == null) { // the template rewrote earlier turns: the common token prefix is all that is kept
            return beginFrom(
                    renderIds(next, options),
                    options,
                    chatStops(options),
                    onChatFinish(next, rendered.text(), 0, null));
        }
        return begin(
                ids,
                false,
                options,
                chatStops(options),
                onChatFinish(next, rendered.text(), tokens.size(), cachedChatText));
    }

    private String renderedText(List<ChatMessage> conversation) {
        return chatTemplate().render(conversation, true);
    }

    private int[] renderIds(List<ChatMessage> conversation, GenerationOptions options) {
        ChatPrompt rendered = chatTemplate().renderPrompt(conversation, true);
        boolean bos = options.addBos() && tokenizer.addBosByDefault() && !startsWithBosText(rendered.text());
        return rendered.encode(tokenizer, bos);
    }

    private List<String> chatStops(GenerationOptions options) {
        List<String> stops = new ArrayList<>(options.stopStrings());
        stops.addAll(chatTemplate().stopStrings());
        return stops;
    }

    /**
     * Keeps the conversation when a reply ends; {@code turnStart} and {@code textBefore} (the tokens
     * and cached text before this turn) let {@link #regenerate} take the turn back.
     */
    private Consumer<GenerationResult> onChatFinish(
            List<ChatMessage> next, String promptText, int turnStart, String textBefore) {
        return result -> {
            lastTurnStart = turnStart;
            lastTurnCachedText = textBefore;
            messages.clear();
            messages.addAll(next);
            messages.add(new ChatMessage("assistant", result.text()));
            holdsRawText = false;
            // A stop string or a cancellation leaves tokens in the cache that the text does not show.
            boolean exact =
                    result.finishReason() == FinishReason.EOS || result.finishReason() == FinishReason.MAX_TOKENS;
            cachedChatText = exact ? promptText + result.text() : null;
        };
    }

    /** Whether the history (with the replies as generated) is a proper prefix of {@code next}. */
    private boolean extendsHistory(List<ChatMessage> next) {
        if (tokens.size() == 0 || messages.size() >= next.size()) {
            return false;
        }
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage held = messages.get(i);
            ChatMessage given = next.get(i);
            boolean same = held.equals(given)
                    || (held.role().equals(given.role())
                            && held.content().strip().equals(given.content().strip()));
            if (!same) {
                return false;
            }
        }
        return true;
    }

    /** Starts from the whole prompt {@code ids}, keeping the longest prefix of them the cache holds. */
    private Generation beginFrom(
            int[] ids, GenerationOptions options, List<String> stops, Consumer<GenerationResult> onFinish) {
        if (running != null) {
            throw new IllegalStateException(
                    "this session is already generating: finish or close that generation first");
        }
        int common = 0;
        int held = Math.min(tokens.size(), state.position());
        while (common < held && common < ids.length && tokens.get(common) == ids[common]) {
            common++;
        }
        int keep = Math.min(common, ids.length - 1); // the last prompt token is evaluated again for its logits
        boolean restart = keep <= 0;
        if (!restart && keep < state.position()) {
            restart = eviction != null || !state.rewind(keep);
        }
        if (restart) {
            keep = 0;
        } else {
            tokens.truncate(keep);
        }
        return begin(Arrays.copyOfRange(ids, keep, ids.length), restart, options, stops, onFinish);
    }

    /** The ids of every end-of-generation token (what {@link GenerationOptions#ignoreEos()} masks). */
    int[] endOfGenerationIds() {
        if (endOfGeneration == null) {
            endOfGeneration = IntStream.range(0, tokenizer.vocabSize())
                    .filter(tokenizer::isEndOfGeneration)
                    .toArray();
        }
        return endOfGeneration;
    }

    /**
     * Forgets the last reply and generates a new one to the same user message (with a seeded
     * sampler, the same seed gives the same reply; another seed another). The KV cache is rewound
     * to the start of that turn, so only the user message is evaluated again.
     *
     * @throws IllegalStateException when the session has no chat turn to take back
     *     (when starting the new reply fails, e.g. a context overflow, the turn stays taken back)
     */
    public GenerationResult regenerate(GenerationOptions options, TokenListener listener) {
        return startRegenerate(options).runTo(listener);
    }

    public Generation startRegenerate(GenerationOptions options) {
        return startChat(takeBackLastTurn().content(), options);
    }

    /** Replaces the last user message (and drops its reply), then generates the reply to the new text. */
    public GenerationResult editLastTurn(String userMessage, GenerationOptions options, TokenListener listener) {
        return startEditLastTurn(userMessage, options).runTo(listener);
    }

    public Generation startEditLastTurn(String userMessage, GenerationOptions options) {
        takeBackLastTurn();
        return startChat(userMessage, options);
    }

    /** Removes the last user message and its reply from history, tokens and cache; returns the message. */
    private ChatMessage takeBackLastTurn() {
        ensureOpen();
        if (running != null) {
            throw new IllegalStateException("this session is generating: finish or close that generation first");
        }
        if (lastTurnStart < 0 || messages.size() < 2) {
            throw new IllegalStateException("there is no chat turn to take back");
        }
        ChatMessage user = messages.get(messages.size() - 2);
        messages.subList(messages.size() - 2, messages.size()).clear();
        rewind(lastTurnStart);
        cachedChatText = lastTurnCachedText;
        lastTurnStart = -1; // only one turn back: earlier turns' starts are not kept
        return user;
    }

    /**
     * Keeps the first {@code size} tokens. Without eviction the cache is cut at that position;
     * an evicting cache cannot be cut (its choices depended on what came after), so it is emptied
     * and the kept tokens are evaluated again by the next generation.
     */
    private void rewind(int size) {
        tokens.truncate(size);
        if (eviction != null) {
            eviction.reset();
            state.reset();
        } else if (state.position() > size) {
            KvRewind.cut(state, size);
        }
    }

    /** How this session renders chat turns: its options' template, else the model's. */
    public ChatTemplate chatTemplate() {
        return options.chatTemplate() != null ? options.chatTemplate() : engine.chatTemplate();
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
        long entries = cache.entries();
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

    /**
     * Writes the conversation (history, tokens and the KV cache as it is) to {@code file}, so that
     * {@link #restore} continues it bit for bit. Sessions with a KV eviction policy cannot be saved.
     *
     * @throws JacapException when the session evicts or is generating
     * @throws IOException when the file cannot be written
     */
    public void save(Path file) throws IOException {
        ensureOpen();
        requireIdleWithoutEviction("saved");
        SessionFile.write(
                file,
                engine,
                new SessionFile.Content(List.copyOf(messages), tokens.toArray(), lastTurnStart, holdsRawText, state));
    }

    /**
     * Replaces this session's conversation with one {@link #save}d from a session of the same model.
     *
     * @throws JacapException when the file is not a session file, was saved with another model, holds
     *     more tokens than this session's context, or this session evicts
     * @throws IOException when the file cannot be read
     *     (on any failure the session is left empty, as after {@link #reset()})
     */
    public void restore(Path file) throws IOException {
        ensureOpen();
        requireIdleWithoutEviction("restored");
        clearCache();
        startHistory();
        SessionFile.Content c;
        try {
            c = SessionFile.read(file, engine, state, positionLimit);
        } catch (IOException | RuntimeException e) {
            clearCache(); // a half-read cache must not be used
            throw e;
        }
        messages.clear();
        messages.addAll(c.messages());
        tokens.addAll(c.tokens());
        lastTurnStart = c.lastTurnStart();
        lastTurnCachedText = null;
        cachedChatText = null; // not saved: the next turn renders after the history instead
        holdsRawText = c.holdsRawText();
    }

    private void requireIdleWithoutEviction(String what) {
        if (running != null) {
            throw new IllegalStateException("this session is generating: finish or close that generation first");
        }
        if (eviction != null) {
            throw new JacapException("a session with a KV eviction policy cannot be " + what
                    + " (its cache depends on the policy's running statistics)");
        }
    }

    /** Forgets the conversation (the system prompt stays); the KV cache is emptied. */
    public synchronized void reset() {
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
        Generation g = running;
        if (g != null) {
            g.cancel();
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

    /** Whether the session holds as many tokens as its positions allow: nothing more can be generated. */
    boolean full() {
        return tokens.size() >= positionLimit;
    }

    int pendingTokens() {
        return tokens.size() - state.position();
    }

    void append(int token) {
        tokens.add(token);
    }

    synchronized void ended(Generation g) {
        if (running == g) {
            running = null;
        }
    }

    /** After a failed forward pass the cache may be half-written: start the tokens over (chat history stays). */
    void discardCache() {
        clearCache();
    }

    // ---- internals ------------------------------------------------------------------------

    private synchronized Generation begin(
            int[] newIds,
            boolean restart,
            GenerationOptions options,
            List<String> stops,
            Consumer<GenerationResult> onFinish) {
        ensureIdle();
        int held = restart ? 0 : tokens.size();
        long total = (long) held + newIds.length;
        if (total == 0) {
            throw new JacapException("the prompt is empty: there is nothing to generate from");
        }
        // Only what is certain is checked up front: the prompt, and room for one reply token. A
        // longer reply stops as CONTEXT_FULL where the context ends.
        int room = options.maxTokens() > 0 ? 1 : 0;
        if (total + room > positionLimit) {
            String prompt = held == 0
                    ? "prompt of " + newIds.length + " tokens"
                    : total + " tokens (" + held + " in the session + " + newIds.length + " new)";
            throw new JacapException("context overflow: " + prompt + (room > 0 ? " + 1 to reply" : "")
                    + " > context of " + positionLimit + " tokens");
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

    private void checkIds(int[] promptIds) {
        int vocab = tokenizer.vocabSize();
        for (int id : promptIds) {
            if (id < 0 || id >= vocab) {
                throw new JacapException("token id " + id + " is outside the vocabulary [0, " + vocab + ")");
            }
        }
    }

    private boolean startsWithBosText(String text) {
        int bos = tokenizer.bosId();
        return bos >= 0 && text.startsWith(tokenizer.piece(bos));
    }

    private void clearCache() {
        cachedChatText = null;
        if (eviction != null) {
            eviction.reset();
        }
        state.reset();
        tokens.clear();
    }

    private void startHistory() {
        messages.clear();
        lastTurnStart = -1;
        holdsRawText = false;
        if (options.systemPrompt() != null) {
            messages.add(new ChatMessage("system", options.systemPrompt()));
        }
    }

    private void ensureIdle() {
        if (running != null) {
            throw new IllegalStateException(
                    "this session is already generating: finish or close that generation first");
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

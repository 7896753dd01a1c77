package org.jacap.engine;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import org.jacap.model.Model;
import org.jacap.sampling.Sampler;
import org.jacap.tokenizer.StreamingDecoder;
import org.jacap.tokenizer.Tokenizer;

/**
 * A generation in progress, pulled one token at a time: each {@link #next()} runs one forward
 * pass (the first one evaluates the prompt). Ends on an end-of-generation token, a stop string,
 * the token limit, a full context, or cancellation; then {@link #result()} tells how it went.
 *
 * <p>Cancellation ({@link #cancel()}, the options' {@link CancellationToken}, an interrupt of the
 * generating thread) takes effect before the next forward pass; a long prompt is evaluated in
 * chunks and checked between them. Text held back at that moment is dropped.
 */
public final class Generation implements Iterator<TokenEvent>, AutoCloseable {
    private final Session session;
    private final Tokenizer tokenizer;
    private final GenerationOptions options;
    private final Sampler sampler;
    private final StreamingDecoder decoder;
    private final StopStringFilter stops;
    private final Consumer<GenerationResult> onFinish;
    private final TokenBuffer ids = new TokenBuffer();
    private final StringBuilder text = new StringBuilder();

    private LogitsHook logitsHook; // test seam: stands in for a model that chooses to end
    private boolean promptDone;
    private boolean cancelRequested;
    private TokenEvent buffered;
    private int textBeforeBuffered;
    private FinishReason finishReason;
    private GenerationResult result;

    private int promptTokens;
    private int reusedTokens;
    private long promptNanos;
    private long evalNanos;
    private int evalTokens;
    private long sampleNanos;

    Generation(
            Session session,
            GenerationOptions options,
            Sampler sampler,
            List<String> stopStrings,
            Consumer<GenerationResult> onFinish) {
        this.session = session;
        this.tokenizer = session.tokenizer();
        this.options = options;
        this.sampler = sampler;
        this.decoder = tokenizer.streamingDecoder();
        this.stops = new StopStringFilter(List.copyOf(stopStrings));
        this.onFinish = onFinish;
    }

    @Override
    public boolean hasNext() {
        if (buffered == null && finishReason == null) {
            textBeforeBuffered = text.length();
            buffered = step();
        }
        return buffered != null;
    }

    @Override
    public TokenEvent next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the generation has ended (" + finishReason + ")");
        }
        TokenEvent e = buffered;
        buffered = null;
        return e;
    }

    /** Stops before the next forward pass; a no-op once the generation has ended. */
    public void cancel() {
        if (finishReason == null) {
            if (buffered != null) { // computed but never handed out: not part of the result's text
                text.setLength(textBeforeBuffered);
                buffered = null;
            }
            finish(FinishReason.CANCELLED);
        }
    }

    /** Same as {@link #cancel()}: lets a generation be used in try-with-resources. */
    @Override
    public void close() {
        cancel();
    }

    public boolean isFinished() {
        return finishReason != null;
    }

    /** The outcome; only once the generation has ended. */
    public GenerationResult result() {
        if (result == null) {
            throw new IllegalStateException("the generation is still running");
        }
        return result;
    }

    /** Changes the logits before each sampling step (tests use it to make the model end on cue). */
    void logitsHook(LogitsHook hook) {
        this.logitsHook = hook;
    }

    @FunctionalInterface
    interface LogitsHook {
        void adjust(float[] logits, int step);
    }

    /** Runs to the end, handing every token to the listener; a false answer cancels. */
    GenerationResult runTo(TokenListener listener) {
        try {
            while (hasNext()) {
                TokenEvent e = next();
                if (!listener.onToken(e.id(), e.text())) {
                    cancel();
                }
            }
        } finally {
            cancel(); // a throwing listener or forward pass still ends the generation
        }
        return result();
    }

    private TokenEvent step() {
        if (cancelled()) {
            finish(FinishReason.CANCELLED);
            return null;
        }
        float[] logits;
        try {
            logits = promptDone ? decode() : evaluatePrompt();
        } catch (RuntimeException | Error e) {
            session.discardCache();
            finish(FinishReason.CANCELLED);
            throw e;
        }
        if (logits == null) {
            finish(FinishReason.CANCELLED);
            return null;
        }
        if (ids.size() == options.maxTokens()) { // only with maxTokens == 0: the prompt is evaluated, nothing sampled
            finish(FinishReason.MAX_TOKENS);
            return null;
        }
        if (logitsHook != null) {
            logitsHook.adjust(logits, ids.size());
        }
        int vocab = tokenizer.vocabSize();
        TopLogits top = options.logprobs() > 0 ? TopLogits.of(logits, vocab, options.logprobs()) : null;
        if (options.ignoreEos()) {
            for (int id : session.endOfGenerationIds()) {
                logits[id] = Float.NEGATIVE_INFINITY;
            }
        }
        long t0 = System.nanoTime();
        int token = sampler.sample(logits, 0);
        TokenLogprobs logprobs = top == null ? null : top.forChosen(logits[token], tokenizer);
        sampler.accept(token);
        sampleNanos += System.nanoTime() - t0;
        ids.add(token);

        String shown;
        FinishReason reason = null;
        if (tokenizer.isEndOfGeneration(token)) {
            shown = stops.accept(decoder.flush()) + stops.flush();
            reason = stops.matched() ? FinishReason.STOP_STRING : FinishReason.EOS;
        } else {
            session.append(token);
            shown = stops.accept(decoder.accept(token));
            if (stops.matched()) {
                reason = FinishReason.STOP_STRING;
            } else if (ids.size() == options.maxTokens() || session.full()) {
                shown += stops.accept(decoder.flush());
                shown += stops.flush();
                reason = stops.matched()
                        ? FinishReason.STOP_STRING
                        : ids.size() == options.maxTokens() ? FinishReason.MAX_TOKENS : FinishReason.CONTEXT_FULL;
            }
        }
        text.append(shown);
        if (reason != null) {
            finish(reason);
        }
        return new TokenEvent(token, shown, logprobs);
    }

    /** Evaluates every pending token in chunks, checking for cancellation in between; null if cancelled. */
    private float[] evaluatePrompt() {
        reusedTokens = session.cachedTokens();
        promptTokens = session.pendingTokens();
        long t0 = System.nanoTime();
        float[] logits = null;
        while (session.pendingTokens() > 0) {
            if (logits != null && cancelled()) {
                return null;
            }
            logits = session.evaluatePending(Model.DEFAULT_CHUNK);
        }
        session.promptEvaluated();
        promptNanos = System.nanoTime() - t0;
        promptDone = true;
        return logits;
    }

    /** Evaluates the token sampled last. */
    private float[] decode() {
        long t0 = System.nanoTime();
        float[] logits = session.evaluateSampled();
        evalNanos += System.nanoTime() - t0;
        evalTokens++;
        return logits;
    }

    private boolean cancelled() {
        CancellationToken token = options.cancellation();
        return cancelRequested
                || (token != null && token.isCancelled())
                || Thread.currentThread().isInterrupted(); // the flag stays set for the caller
    }

    private void finish(FinishReason reason) {
        cancelRequested = true;
        finishReason = reason;
        result = new GenerationResult(
                text.toString(),
                ids.toArray(),
                reason,
                promptTokens,
                reusedTokens,
                new GenerationResult.Timings(promptNanos, promptTokens, evalNanos, evalTokens, sampleNanos),
                sampler.seed());
        if (onFinish != null) {
            onFinish.accept(result); // the history is complete before the session takes a new generation
        }
        session.ended(this);
    }
}

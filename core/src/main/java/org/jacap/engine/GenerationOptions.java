package org.jacap.engine;

import java.util.List;
import org.jacap.JacapException;
import org.jacap.sampling.SamplerConfig;

/**
 * What one {@code generate} call does.
 *
 * @param maxTokens      how many tokens to generate at most (≥ 0)
 * @param sampler        how each token is chosen
 * @param stopStrings    the output ends before the first of these (never shown, not even in part)
 * @param addBos         add the BOS token when the session is empty and the model wants one
 * @param specialTokens  parse special-token text such as {@code <|im_end|>} in a text prompt into
 *                       its token (off: it is plain text); chat prompts parse it in the template's
 *                       text only, never in message text
 * @param cancellation   checked before every step; null for none
 * @param logprobs       0: off; n ≥ 1: every {@link TokenEvent} carries the chosen token's log-prob
 *                       and the n most likely tokens' ({@link TokenLogprobs}); at most
 *                       {@link #MAX_LOGPROBS}
 * @param ignoreEos      never sample an end-of-generation token (as llama.cpp's {@code --ignore-eos}):
 *                       the generation runs to {@code maxTokens} or a stop string
 */
public record GenerationOptions(
        int maxTokens,
        SamplerConfig sampler,
        List<String> stopStrings,
        boolean addBos,
        boolean specialTokens,
        CancellationToken cancellation,
        int logprobs,
        boolean ignoreEos) {

    public static final int DEFAULT_MAX_TOKENS = 128;

    /** The most alternatives a step reports (OpenAI allows 20). */
    public static final int MAX_LOGPROBS = 100;

    private static final GenerationOptions DEFAULTS =
            new GenerationOptions(DEFAULT_MAX_TOKENS, SamplerConfig.defaults(), List.of(), true, false, null, 0, false);

    public GenerationOptions {
        if (maxTokens < 0) {
            throw new JacapException("max tokens must be >= 0 (got " + maxTokens + ")");
        }
        if (sampler == null) {
            throw new JacapException("sampler settings are required (SamplerConfig.defaults() for llama.cpp's)");
        }
        stopStrings = List.copyOf(stopStrings);
        for (String s : stopStrings) {
            if (s.isEmpty()) {
                throw new JacapException("stop strings must not be empty");
            }
        }
        if (logprobs < 0 || logprobs > MAX_LOGPROBS) {
            throw new JacapException("logprobs must be in [0, " + MAX_LOGPROBS + "] (got " + logprobs + "; 0 = off)");
        }
    }

    /** The options before log-probs and ignore-EOS existed. */
    public GenerationOptions(
            int maxTokens,
            SamplerConfig sampler,
            List<String> stopStrings,
            boolean addBos,
            boolean specialTokens,
            CancellationToken cancellation) {
        this(maxTokens, sampler, stopStrings, addBos, specialTokens, cancellation, 0, false);
    }

    /** 128 tokens, llama.cpp's sampling defaults, no stop strings, BOS as the model wants. */
    public static GenerationOptions defaults() {
        return DEFAULTS;
    }

    public GenerationOptions withMaxTokens(int n) {
        return new GenerationOptions(n, sampler, stopStrings, addBos, specialTokens, cancellation, logprobs, ignoreEos);
    }

    public GenerationOptions withSampler(SamplerConfig s) {
        return new GenerationOptions(
                maxTokens, s, stopStrings, addBos, specialTokens, cancellation, logprobs, ignoreEos);
    }

    public GenerationOptions withStopStrings(List<String> stops) {
        return new GenerationOptions(
                maxTokens, sampler, stops, addBos, specialTokens, cancellation, logprobs, ignoreEos);
    }

    public GenerationOptions withAddBos(boolean add) {
        return new GenerationOptions(
                maxTokens, sampler, stopStrings, add, specialTokens, cancellation, logprobs, ignoreEos);
    }

    public GenerationOptions withSpecialTokens(boolean special) {
        return new GenerationOptions(
                maxTokens, sampler, stopStrings, addBos, special, cancellation, logprobs, ignoreEos);
    }

    public GenerationOptions withCancellation(CancellationToken token) {
        return new GenerationOptions(
                maxTokens, sampler, stopStrings, addBos, specialTokens, token, logprobs, ignoreEos);
    }

    /** Log-probs of the chosen token and the {@code n} most likely ones at every step; 0 turns them off. */
    public GenerationOptions withLogprobs(int n) {
        return new GenerationOptions(
                maxTokens, sampler, stopStrings, addBos, specialTokens, cancellation, n, ignoreEos);
    }

    public GenerationOptions withIgnoreEos(boolean ignore) {
        return new GenerationOptions(
                maxTokens, sampler, stopStrings, addBos, specialTokens, cancellation, logprobs, ignore);
    }
}

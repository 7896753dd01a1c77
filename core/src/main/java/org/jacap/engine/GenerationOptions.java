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
 *                       its token (off: it is plain text); chat prompts always parse it
 * @param cancellation   checked before every step; null for none
 */
public record GenerationOptions(
        int maxTokens,
        SamplerConfig sampler,
        List<String> stopStrings,
        boolean addBos,
        boolean specialTokens,
        CancellationToken cancellation) {

    public static final int DEFAULT_MAX_TOKENS = 128;

    private static final GenerationOptions DEFAULTS =
            new GenerationOptions(DEFAULT_MAX_TOKENS, SamplerConfig.defaults(), List.of(), true, false, null);

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
    }

    /** 128 tokens, llama.cpp's sampling defaults, no stop strings, BOS as the model wants. */
    public static GenerationOptions defaults() {
        return DEFAULTS;
    }

    public GenerationOptions withMaxTokens(int n) {
        return new GenerationOptions(n, sampler, stopStrings, addBos, specialTokens, cancellation);
    }

    public GenerationOptions withSampler(SamplerConfig s) {
        return new GenerationOptions(maxTokens, s, stopStrings, addBos, specialTokens, cancellation);
    }

    public GenerationOptions withStopStrings(List<String> stops) {
        return new GenerationOptions(maxTokens, sampler, stops, addBos, specialTokens, cancellation);
    }

    public GenerationOptions withAddBos(boolean add) {
        return new GenerationOptions(maxTokens, sampler, stopStrings, add, specialTokens, cancellation);
    }

    public GenerationOptions withSpecialTokens(boolean special) {
        return new GenerationOptions(maxTokens, sampler, stopStrings, addBos, special, cancellation);
    }

    public GenerationOptions withCancellation(CancellationToken token) {
        return new GenerationOptions(maxTokens, sampler, stopStrings, addBos, specialTokens, token);
    }
}

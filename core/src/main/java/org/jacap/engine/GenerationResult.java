package org.jacap.engine;

import java.util.Arrays;

/**
 * The outcome of one {@code generate} call.
 *
 * @param text          the generated text as streamed (without the prompt and without any stop string)
 * @param ids           every sampled token in order, including a final end-of-generation token
 * @param finishReason  why it stopped
 * @param promptTokens  prompt tokens evaluated by this call (new ones only)
 * @param reusedTokens  tokens of the session already in the KV cache, not evaluated again
 * @param timings       where the time went
 * @param seed          the sampler's seed (the chosen one when a random seed was asked for)
 */
public record GenerationResult(
        String text,
        int[] ids,
        FinishReason finishReason,
        int promptTokens,
        int reusedTokens,
        Timings timings,
        long seed) {

    public GenerationResult {
        ids = ids.clone();
    }

    @Override
    public int[] ids() {
        return ids.clone();
    }

    /**
     * Tokens of text generated: {@link #ids()} without the end-of-generation token that ended an
     * {@link FinishReason#EOS} stop (that token is sampled but never becomes part of the session).
     */
    public int generatedTokens() {
        return finishReason == FinishReason.EOS && ids.length > 0 ? ids.length - 1 : ids.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GenerationResult r
                && text.equals(r.text)
                && Arrays.equals(ids, r.ids)
                && finishReason == r.finishReason
                && promptTokens == r.promptTokens
                && reusedTokens == r.reusedTokens
                && timings.equals(r.timings)
                && seed == r.seed;
    }

    @Override
    public int hashCode() {
        return 31 * text.hashCode() + Arrays.hashCode(ids);
    }

    @Override
    public String toString() {
        return "GenerationResult[" + finishReason + ", " + ids.length + " tokens, text=" + text + "]";
    }

    /**
     * @param promptEvalNanos time spent evaluating the prompt (prefill, up to the first logits)
     * @param promptTokens    tokens evaluated in that time
     * @param evalNanos       time spent in single-token forward passes (decode)
     * @param evalTokens      tokens evaluated in that time
     * @param sampleNanos     time spent choosing tokens
     */
    public record Timings(long promptEvalNanos, int promptTokens, long evalNanos, int evalTokens, long sampleNanos) {

        public double promptTokensPerSecond() {
            return perSecond(promptTokens, promptEvalNanos);
        }

        public double evalTokensPerSecond() {
            return perSecond(evalTokens, evalNanos);
        }

        private static double perSecond(int tokens, long nanos) {
            return nanos <= 0 ? 0 : tokens * 1e9 / nanos;
        }
    }
}

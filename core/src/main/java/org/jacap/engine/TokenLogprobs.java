package org.jacap.engine;

import java.util.List;

/**
 * Log-probabilities at one generation step: the log-softmax of the model's raw logits, before any
 * sampling stage (penalties, temperature, top-k/p) changed them, as llama.cpp's {@code n_probs}.
 *
 * @param logprob the chosen token's log-prob (≤ 0)
 * @param top     the most likely tokens, most likely first (ties: lower id first)
 */
public record TokenLogprobs(float logprob, List<Alternative> top) {

    public TokenLogprobs {
        top = List.copyOf(top);
    }

    /**
     * @param id      token id
     * @param piece   the token's text ({@code Tokenizer.piece})
     * @param logprob its log-prob
     */
    public record Alternative(int id, String piece, float logprob) {}
}

package org.jacap.engine;

/**
 * One generated token and the text it released. The text is never broken UTF-8 and never contains
 * (part of) a stop string; it may be empty while bytes of a multi-byte character or the possible
 * start of a stop string are held back, and the final event also carries whatever was held.
 *
 * @param id       the token id (the model's end-of-generation token for the final event of an EOS stop)
 * @param text     the text to show now
 * @param logprobs the token's log-prob and the top alternatives; null unless
 *                 {@link GenerationOptions#logprobs()} asked for them
 */
public record TokenEvent(int id, String text, TokenLogprobs logprobs) {

    /** An event without log-probs. */
    public TokenEvent(int id, String text) {
        this(id, text, null);
    }
}

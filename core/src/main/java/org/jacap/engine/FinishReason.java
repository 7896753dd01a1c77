package org.jacap.engine;

/** Why a generation stopped. */
public enum FinishReason {
    /** The model produced its end-of-sequence token or another end-of-generation token. */
    EOS,
    /** The output reached one of the stop strings (which is not part of the text). */
    STOP_STRING,
    /** The requested number of tokens was generated. */
    MAX_TOKENS,
    /**
     * The session reached its context length (no eviction policy, or an explicit context with
     * one): the reply is cut there; a larger context or a KV budget lets it go on.
     */
    CONTEXT_FULL,
    /** A cancellation token, the listener, {@link Generation#close()} or a thread interrupt stopped it. */
    CANCELLED
}

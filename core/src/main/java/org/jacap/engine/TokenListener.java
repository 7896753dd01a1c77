package org.jacap.engine;

import java.util.function.Consumer;

/** Receives a generation as it happens, on the generating thread. */
@FunctionalInterface
public interface TokenListener {

    /**
     * Called once per generated token, in order.
     *
     * @return true to go on, false to stop (the generation then ends as {@link FinishReason#CANCELLED})
     */
    boolean onToken(int id, String text);

    /** Ignores everything (for callers that only want the {@link GenerationResult}). */
    static TokenListener none() {
        return (id, text) -> true;
    }

    /** Passes each non-empty text piece to {@code sink} and never stops the generation. */
    static TokenListener text(Consumer<String> sink) {
        return (id, text) -> {
            if (!text.isEmpty()) {
                sink.accept(text);
            }
            return true;
        };
    }
}

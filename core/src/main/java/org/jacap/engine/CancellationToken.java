package org.jacap.engine;

/**
 * Stops a running generation from another thread (a UI's stop button). Checked before every
 * forward step, so the generation ends after at most one more token; reusable until cancelled.
 */
public final class CancellationToken {
    private volatile boolean cancelled;

    public void cancel() {
        cancelled = true;
    }

    public boolean isCancelled() {
        return cancelled;
    }
}

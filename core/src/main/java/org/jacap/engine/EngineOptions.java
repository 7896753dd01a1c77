package org.jacap.engine;

import org.jacap.JacapException;

/**
 * How an {@link Engine} loads and runs its model.
 *
 * @param threads   compute threads, ≥ 1 (the calling thread counts as one)
 * @param precision how activations enter the matrix products (see {@link ComputePrecision})
 * @param progress  told how many bytes of weights have been read; null for none
 */
public record EngineOptions(int threads, ComputePrecision precision, LoadListener progress) {

    public EngineOptions {
        if (threads < 1) {
            throw new JacapException("threads must be >= 1 (got " + threads + ")");
        }
        if (precision == null) {
            throw new JacapException("precision is required (ComputePrecision.NATIVE for llama.cpp's)");
        }
        progress = progress == null ? LoadListener.NONE : progress;
    }

    /** Every available processor, native precision, no progress reports. */
    public static EngineOptions defaults() {
        return new EngineOptions(
                Runtime.getRuntime().availableProcessors(), ComputePrecision.NATIVE, LoadListener.NONE);
    }

    public EngineOptions withThreads(int n) {
        return new EngineOptions(n, precision, progress);
    }

    public EngineOptions withPrecision(ComputePrecision p) {
        return new EngineOptions(threads, p, progress);
    }

    public EngineOptions withProgress(LoadListener p) {
        return new EngineOptions(threads, precision, p);
    }
}

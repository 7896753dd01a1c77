package org.jacap.model;

import java.util.Objects;
import org.jacap.simd.Precision;

/**
 * How to load a model.
 *
 * @param threads   compute threads (the caller counts as one), ≥ 1
 * @param precision activation handling of matrix products: {@link Precision#NATIVE} reproduces
 *                  llama.cpp's CPU path, {@link Precision#F32} keeps activations in float32
 * @param progress  called while the weights are paged in
 */
public record LoadOptions(int threads, Precision precision, LoadProgress progress) {

    public LoadOptions {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        Objects.requireNonNull(precision, "precision");
        progress = progress == null ? LoadProgress.NONE : progress;
    }

    /** All available processors, native precision, no progress reporting. */
    public static LoadOptions defaults() {
        return new LoadOptions(Runtime.getRuntime().availableProcessors(), Precision.NATIVE, LoadProgress.NONE);
    }

    public LoadOptions withThreads(int n) {
        return new LoadOptions(n, precision, progress);
    }

    public LoadOptions withPrecision(Precision p) {
        return new LoadOptions(threads, p, progress);
    }

    public LoadOptions withProgress(LoadProgress p) {
        return new LoadOptions(threads, precision, p);
    }
}

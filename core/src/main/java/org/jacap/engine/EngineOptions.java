package org.jacap.engine;

import java.util.Objects;
import org.jacap.JacapException;
import org.jacap.model.LoadProgress;
import org.jacap.simd.Precision;

/**
 * How an {@link Engine} loads and runs its model.
 *
 * @param threads   compute threads, ≥ 1 (the calling thread counts as one)
 * @param precision {@link Precision#NATIVE}: activations quantized like llama.cpp's CPU path;
 *                  {@link Precision#F32}: float activations throughout
 * @param progress  told how far loading got ({@code done} of {@code total} bytes); may be null
 */
public record EngineOptions(int threads, Precision precision, LoadProgress progress) {

    public EngineOptions {
        if (threads < 1) {
            throw new JacapException("threads must be >= 1 (got " + threads + ")");
        }
        Objects.requireNonNull(precision, "precision");
        progress = progress == null ? LoadProgress.NONE : progress;
    }

    /** Every available processor, native precision, no progress reports. */
    public static EngineOptions defaults() {
        return new EngineOptions(Runtime.getRuntime().availableProcessors(), Precision.NATIVE, LoadProgress.NONE);
    }

    public EngineOptions withThreads(int n) {
        return new EngineOptions(n, precision, progress);
    }

    public EngineOptions withPrecision(Precision p) {
        return new EngineOptions(threads, p, progress);
    }

    public EngineOptions withProgress(LoadProgress p) {
        return new EngineOptions(threads, precision, p);
    }
}

package org.jacap.engine;

import org.jacap.simd.Precision;

/** How the matrix products treat activations. */
public enum ComputePrecision {
    /**
     * As llama.cpp's CPU path: activations are quantized to the weight type's companion format
     * (Q8_0, Q8_K …) before each product. The default; the fastest.
     */
    NATIVE(Precision.NATIVE),
    /** Float activations throughout, weights dequantized exactly: slower, closest to an F32 reference. */
    F32(Precision.F32);

    private final Precision kernel;

    ComputePrecision(Precision kernel) {
        this.kernel = kernel;
    }

    Precision kernel() {
        return kernel;
    }
}

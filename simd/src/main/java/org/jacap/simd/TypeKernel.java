package org.jacap.simd;

import java.lang.foreign.MemorySegment;
import org.jacap.gguf.GgmlType;

/**
 * What one GGML tensor type contributes to the kernels: how to turn its blocks into floats
 * (vectorised, with a scalar twin that must agree bit for bit) and which activation form
 * llama.cpp pairs it with. Everything else (dot products, matrix tiles, threading) is shared
 * and lives in {@link FloatLoops} and {@link MatMul}; adding a type means one class here and
 * one line in {@link Kernels#of}.
 */
public sealed interface TypeKernel
        permits F32Kernel, F16Kernel, BF16Kernel, Q8_0Kernel, Q4_0Kernel, Q4_1Kernel, Q5_0Kernel, Q5_1Kernel,
                Q2KKernel, Q3KKernel, Q4KKernel, Q5KKernel, Q6KKernel, Q8KKernel {

    GgmlType type();

    /** The activation form of llama.cpp's CPU dot product for this weight type. */
    VecDotType vecDotType();

    /**
     * Dequantizes {@code count} elements (a whole number of blocks) stored from byte
     * {@code offset} of {@code src} into {@code dst[dstOff .. dstOff+count)}. Vectorised.
     */
    void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count);

    /** Scalar twin of {@link #dequantize}: same values, bit for bit. */
    void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count);

    default int blockSize() {
        return type().blockSize();
    }

    default int bytesPerBlock() {
        return type().bytesPerBlock();
    }
}

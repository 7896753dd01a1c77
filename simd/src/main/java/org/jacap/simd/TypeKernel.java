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
        permits F32Kernel,
                F16Kernel,
                BF16Kernel,
                Q8_0Kernel,
                Q4_0Kernel,
                Q4_1Kernel,
                Q5_0Kernel,
                Q5_1Kernel,
                Q2KKernel,
                Q3KKernel,
                Q4KKernel,
                Q5KKernel,
                Q6KKernel,
                Q8KKernel {

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

    /**
     * {@code Σ_i w[i]·x[xOff+i]} over the {@code count} elements (whole blocks) of one row stored
     * from byte {@code offset}: the matrix-vector kernel. Types with a fused kernel decode and
     * multiply in registers or unpack through {@code scratch}; the others decode chunks to floats
     * in {@code scratch} and run the shared {@link FloatLoops#dot}.
     */
    default float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        float[] buf = scratch.floats;
        int chunk = DOT_CHUNK - DOT_CHUNK % blockSize();
        for (int c = 0; c < count; c += chunk) {
            int n = Math.min(chunk, count - c);
            dequantize(src, offset + type().bytesFor(c), buf, 0, n);
            sum += FloatLoops.dot(buf, 0, x, xOff + c, n);
        }
        return sum;
    }

    /** Scalar twin of {@link #dot}. */
    default float dotScalar(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        float sum = 0f;
        float[] buf = scratch.floats;
        int chunk = DOT_CHUNK - DOT_CHUNK % blockSize();
        for (int c = 0; c < count; c += chunk) {
            int n = Math.min(chunk, count - c);
            dequantizeScalar(src, offset + type().bytesFor(c), buf, 0, n);
            sum += FloatLoops.dotScalar(buf, 0, x, xOff + c, n);
        }
        return sum;
    }

    /**
     * True when this type has an integer matrix-vector kernel, {@link #dotQ8}: weights times
     * activations quantized to the type's {@link #vecDotType()} (Q8_0 or Q8_K), multiplied in
     * 16-bit lanes and summed in 32-bit integers, so few conversions to float.
     */
    default boolean hasQ8Dot() {
        return false;
    }

    /**
     * {@code Σ_i w[i]·x[i]} over the {@code count} elements of one row stored from byte
     * {@code offset}, against activations already quantized to {@link #vecDotType()} ({@code x}
     * from element 0). The same products as {@link #dot} on the rounded floats, summed exactly
     * in integers within each block.
     */
    default float dotQ8(MemorySegment src, long offset, QuantizedActivations x, int count) {
        throw new UnsupportedOperationException(type() + " has no integer matrix-vector kernel");
    }

    /** Scalar twin of {@link #dotQ8}: the same integer block sums, one float sum in block order. */
    default float dotQ8Scalar(MemorySegment src, long offset, QuantizedActivations x, int count) {
        throw new UnsupportedOperationException(type() + " has no integer matrix-vector kernel");
    }

    /** Weights per chunk of the decode-then-dot kernels ({@link DotScratch} holds one chunk). */
    int DOT_CHUNK = 1024;

    default int blockSize() {
        return type().blockSize();
    }

    default int bytesPerBlock() {
        return type().bytesPerBlock();
    }
}

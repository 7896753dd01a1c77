package org.jacap.simd;

import java.lang.foreign.MemorySegment;
import org.jacap.gguf.GgmlType;

/**
 * What one GGML tensor type contributes to the kernels: how to turn its blocks into floats
 * (vectorised, with a scalar twin that must agree bit for bit) and which activation form
 * llama.cpp pairs it with. Everything else (dot products, matrix tiles, threading) is shared
 * and lives in {@link FloatLoops} and {@link MatMul}; adding a type means one class here and
 * one line in {@link Kernels#of}. Types with integer decode kernels are {@link IntegerDotKernel}s.
 */
public sealed interface TypeKernel
        permits F32Kernel,
                F16Kernel,
                BF16Kernel,
                IntegerDotKernel,
                Q5_1Kernel,
                Q2KKernel,
                Q3KKernel,
                Q5KKernel,
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

    /** Weights per chunk of the decode-then-dot kernels ({@link DotScratch} holds one chunk). */
    int DOT_CHUNK = 1024;

    default int blockSize() {
        return type().blockSize();
    }

    default int bytesPerBlock() {
        return type().bytesPerBlock();
    }
}

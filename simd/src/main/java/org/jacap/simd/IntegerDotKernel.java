package org.jacap.simd;

import java.lang.foreign.MemorySegment;

/**
 * A type with integer matrix-vector kernels: weights times activations quantized once per
 * product to the type's {@link #vecDotType()} (Q8_0, Q8_1 or Q8_K, {@link QuantizedActivations}),
 * multiplied in 16-bit lanes and summed exactly in 32-bit integers within each block, so few
 * conversions to float. Each has a 512-bit form (AVX-512) and a 256-bit one (AVX2);
 * {@link #dotQ8} picks the one for this CPU once ({@link Layouts#WIDE}), and the tests run both.
 */
public sealed interface IntegerDotKernel extends TypeKernel
        permits Q8_0Kernel, Q4_0Kernel, Q4_1Kernel, Q5_0Kernel, Q4KKernel, Q6KKernel {

    /**
     * {@code Σ_i w[i]·x[i]} over the {@code count} elements of one row stored from byte
     * {@code offset}, against activations already quantized to {@link #vecDotType()} ({@code x}
     * from element 0). The same products as {@link #dot} on the rounded floats, summed exactly
     * in integers within each block.
     */
    default float dotQ8(MemorySegment src, long offset, QuantizedActivations x, int count) {
        return Layouts.WIDE ? dotQ8Wide(src, offset, x, count) : dotQ8Narrow(src, offset, x, count);
    }

    /** {@link #dotQ8} in 512-bit vectors. */
    float dotQ8Wide(MemorySegment src, long offset, QuantizedActivations x, int count);

    /** {@link #dotQ8} in 256-bit vectors. */
    float dotQ8Narrow(MemorySegment src, long offset, QuantizedActivations x, int count);

    /**
     * {@link #dotQ8Wide} of {@code rows} rows stored {@code rowBytes} apart from byte {@code offset},
     * into {@code out[outOff ..)}: what a matrix-vector product calls once per range of rows. Each
     * kernel declares its own loop, so the loop and its dot are one compilation per type (a default
     * method would be one compilation shared by every type, see {@code MatMul.Q8_ROWS}) and a row
     * costs no call through a handle: on Gemma 3's 640-wide rows (20 blocks) that call was a
     * quarter of a 2048 × 640 product.
     */
    void dotQ8RowsWide(
            MemorySegment src,
            long offset,
            long rowBytes,
            QuantizedActivations x,
            int count,
            float[] out,
            int outOff,
            int rows);

    /** {@link #dotQ8RowsWide} with {@link #dotQ8Narrow}. */
    void dotQ8RowsNarrow(
            MemorySegment src,
            long offset,
            long rowBytes,
            QuantizedActivations x,
            int count,
            float[] out,
            int outOff,
            int rows);

    /** Scalar twin of {@link #dotQ8}: the same integer block sums, one float sum in block order. */
    float dotQ8Scalar(MemorySegment src, long offset, QuantizedActivations x, int count);
}

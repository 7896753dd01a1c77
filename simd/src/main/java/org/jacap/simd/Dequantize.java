package org.jacap.simd;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.jacap.gguf.GgmlType;

/** Dequantization of stored tensors to floats, for every type with a kernel (embedding lookup, tests, tools). */
public final class Dequantize {
    private Dequantize() {}

    /**
     * Dequantizes {@code count} elements (whole blocks) of type {@code type} stored from byte
     * {@code offset} of {@code src} into {@code dst[dstOff ..]}.
     */
    public static void row(GgmlType type, MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        TypeKernel k = Kernels.of(type);
        check(type, src, offset, dst, dstOff, count);
        k.dequantize(src, offset, dst, dstOff, count);
    }

    /** Scalar twin of {@link #row}. */
    public static void rowScalar(GgmlType type, MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        TypeKernel k = Kernels.of(type);
        check(type, src, offset, dst, dstOff, count);
        k.dequantizeScalar(src, offset, dst, dstOff, count);
    }

    /** The whole of {@code src} (a whole number of blocks of {@code type}) as floats. */
    public static float[] all(GgmlType type, MemorySegment src) {
        long blocks = src.byteSize() / type.bytesPerBlock();
        if (blocks * type.bytesPerBlock() != src.byteSize()) {
            throw new IllegalArgumentException(src.byteSize() + " bytes are not a whole number of " + type + " blocks");
        }
        long n = blocks * type.blockSize();
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("tensor too large to dequantize into one array: " + n + " elements");
        }
        float[] dst = new float[(int) n];
        row(type, src, 0, dst, 0, (int) n);
        return dst;
    }

    private static void check(GgmlType type, MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        Objects.requireNonNull(src, "src");
        if (count % type.blockSize() != 0) {
            throw new IllegalArgumentException(
                    type + " dequantizes whole blocks of " + type.blockSize() + ", got " + count);
        }
        Objects.checkFromIndexSize(offset, type.bytesFor(count), src.byteSize());
        Objects.checkFromIndexSize(dstOff, count, dst.length);
    }
}

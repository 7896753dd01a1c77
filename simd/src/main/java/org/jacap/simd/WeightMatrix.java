package org.jacap.simd;

import java.lang.foreign.MemorySegment;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;

/**
 * A weight matrix in ggml layout, still in its stored type: {@code cols} (ne0) is the input
 * width, {@code rows} (ne1) the number of outputs, and row {@code r} starts at byte
 * {@code r * type.bytesFor(cols)} of {@code data}. The constructor checks that a kernel exists,
 * that rows hold whole blocks and that the data has exactly the expected size.
 *
 * @param interleaved the same weights repacked for decode ({@link Interleaving}), or null; the
 *                    products of one token use it, prefill reads {@code data}
 * @param narrowQuants a Q8_0 matrix whose quants all lie in {@code −16..16} (a Q5_0 matrix widened
 *                     at load, {@link Widening}; checked): its prefill sums 16 columns on 16-bit
 *                     integer lanes ({@link Q8_0NarrowTile}); false for every other matrix
 */
public record WeightMatrix(
        MemorySegment data, GgmlType type, int rows, int cols, MemorySegment interleaved, boolean narrowQuants) {

    public WeightMatrix {
        if (data == null || type == null) {
            throw new IllegalArgumentException("weight matrix needs data and a type");
        }
        Kernels.of(type); // UnsupportedTensorTypeException naming the type
        if (rows < 1 || cols < 1) {
            throw new IllegalArgumentException(
                    "weight matrix " + type + " needs rows, cols >= 1, got " + rows + " x " + cols);
        }
        if (cols % type.blockSize() != 0) {
            throw new IllegalArgumentException(
                    "a " + type + " row holds whole blocks of " + type.blockSize() + " elements, but cols = " + cols);
        }
        long expected = (long) rows * type.bytesFor(cols);
        if (data.byteSize() != expected) {
            throw new IllegalArgumentException("a " + rows + " x " + cols + " " + type + " matrix takes " + expected
                    + " bytes, but the data has " + data.byteSize());
        }
        if (interleaved != null && interleaved.byteSize() != Interleaving.bytes(type, rows, cols)) {
            throw new IllegalArgumentException("the interleaved form of a " + rows + " x " + cols + " " + type
                    + " matrix takes " + Interleaving.bytes(type, rows, cols) + " bytes, but it has "
                    + interleaved.byteSize());
        }
        if (narrowQuants && type != GgmlType.Q8_0) {
            throw new IllegalArgumentException("only a Q8_0 matrix has narrow quants, not " + type);
        }
        if (narrowQuants) {
            checkNarrow(data); // a wider quant would overflow the 16-bit sums: wrong products, silently
        }
    }

    /** Throws unless every quant of the Q8_0 blocks in {@code data} lies in {@code −16..16}. */
    private static void checkNarrow(MemorySegment data) {
        long blocks = data.byteSize() / Q8_0Kernel.BYTES;
        for (long b = 0; b < blocks; b++) {
            long o = b * Q8_0Kernel.BYTES + 2; // past the f16 scale
            for (int j = 0; j < 32; j++) {
                byte q = data.get(Layouts.BYTE, o + j);
                if (q < -16 || q > 16) {
                    throw new IllegalArgumentException("a Q8_0 matrix marked narrow holds the quant " + q + " in block "
                            + b + "; narrow quants lie in -16..16");
                }
            }
        }
    }

    /** The matrix with its repacked form ({@link #interleaved}), or none. */
    public WeightMatrix(MemorySegment data, GgmlType type, int rows, int cols, MemorySegment interleaved) {
        this(data, type, rows, cols, interleaved, false);
    }

    /** The matrix as stored, with no repacked form. */
    public WeightMatrix(MemorySegment data, GgmlType type, int rows, int cols) {
        this(data, type, rows, cols, null, false);
    }

    /** Same as the constructor. */
    public static WeightMatrix of(MemorySegment data, GgmlType type, int rows, int cols) {
        return new WeightMatrix(data, type, rows, cols);
    }

    /**
     * The tensor {@code info} of {@code file} as a matrix: ne0 = cols, the product of the other
     * dimensions = rows (a 1-D tensor is one row).
     */
    public static WeightMatrix of(GgufFile file, GgufTensorInfo info) {
        long cols = info.dim(0);
        long rows = info.rows();
        if (cols > Integer.MAX_VALUE || rows > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tensor " + info + " is too large for a weight matrix");
        }
        return new WeightMatrix(file.data(info), info.type(), (int) rows, (int) cols);
    }

    /** Bytes per row. */
    public long rowBytes() {
        return type.bytesFor(cols);
    }

    /** The kernel serving this matrix's type. */
    public TypeKernel kernel() {
        return Kernels.of(type);
    }

    /** Dequantizes row {@code r} into {@code dst[dstOff .. dstOff+cols)} (embedding lookup). */
    public void dequantizeRow(int r, float[] dst, int dstOff) {
        java.util.Objects.checkIndex(r, rows);
        Kernels.of(type).dequantize(data, r * rowBytes(), dst, dstOff, cols);
    }
}

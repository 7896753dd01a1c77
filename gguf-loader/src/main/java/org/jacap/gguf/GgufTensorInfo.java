package org.jacap.gguf;

import java.util.Arrays;

/**
 * A tensor's description: {@code dims[0]} is ggml's ne0 (the innermost, contiguous dimension,
 * i.e. the input width of a weight matrix). {@code offset} is relative to the data section.
 */
public record GgufTensorInfo(String name, long[] dims, GgmlType type, long offset, long byteSize) {

    public GgufTensorInfo {
        dims = dims.clone();
    }

    @Override
    public long[] dims() {
        return dims.clone();
    }

    public int rank() {
        return dims.length;
    }

    /** ne[i], or 1 for dimensions beyond the rank (ggml convention). */
    public long dim(int i) {
        return i < dims.length ? dims[i] : 1;
    }

    public long elementCount() {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    /** Number of rows of width ne0: the product of all dimensions but the first. */
    public long rows() {
        return dims.length == 0 ? 1 : elementCount() / dims[0];
    }

    /** Shape as ggml prints it, e.g. {@code [256, 512]}. */
    public String shape() {
        return Arrays.toString(dims);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GgufTensorInfo t
                && name.equals(t.name)
                && Arrays.equals(dims, t.dims)
                && type == t.type
                && offset == t.offset
                && byteSize == t.byteSize;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(dims);
    }

    @Override
    public String toString() {
        return name + " " + type + " " + shape();
    }
}

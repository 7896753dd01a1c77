package org.jacap.kv;

import java.util.Arrays;

/** Float rows, stored as they come. */
final class F32Rows implements KvRows {
    private final int dim;
    private final float[] data;

    F32Rows(int dim, int capacity) {
        this(dim, new float[Math.multiplyExact(capacity, dim)]);
    }

    private F32Rows(int dim, float[] data) {
        this.dim = dim;
        this.data = data;
    }

    /** The live storage (row i at {@code i * dim}): attention reads it without a copy. */
    float[] array() {
        return data;
    }

    @Override
    public int dim() {
        return dim;
    }

    @Override
    public int capacity() {
        return data.length / dim;
    }

    @Override
    public void write(int row, float[] src, int off) {
        System.arraycopy(src, off, data, row * dim, dim);
    }

    @Override
    public void read(int row, int count, float[] dst, int dstOff) {
        System.arraycopy(data, row * dim, dst, dstOff, count * dim);
    }

    @Override
    public void move(int from, int to, int count) {
        System.arraycopy(data, from * dim, data, to * dim, count * dim);
    }

    @Override
    public KvRows resized(int capacity) {
        return new F32Rows(dim, Arrays.copyOf(data, Math.multiplyExact(capacity, dim)));
    }

    @Override
    public KvRows copy() {
        return new F32Rows(dim, data.clone());
    }
}

package org.jacap.kv;

import java.util.Arrays;

/** Half-precision rows: each value rounded to nearest-even by {@link Float#floatToFloat16} when written. */
final class F16Rows implements KvRows {
    private final int dim;
    private final short[] data;

    F16Rows(int dim, int capacity) {
        this(dim, new short[Math.multiplyExact(capacity, dim)]);
    }

    private F16Rows(int dim, short[] data) {
        this.dim = dim;
        this.data = data;
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
        int o = row * dim;
        for (int i = 0; i < dim; i++) {
            data[o + i] = Float.floatToFloat16(src[off + i]);
        }
    }

    @Override
    public void read(int row, int count, float[] dst, int dstOff) {
        int o = row * dim;
        int n = count * dim;
        // a plain loop: C2 vectorises the half-to-float conversion
        for (int i = 0; i < n; i++) {
            dst[dstOff + i] = Float.float16ToFloat(data[o + i]);
        }
    }

    @Override
    public void move(int from, int to, int count) {
        System.arraycopy(data, from * dim, data, to * dim, count * dim);
    }

    @Override
    public KvRows resized(int capacity) {
        return new F16Rows(dim, Arrays.copyOf(data, Math.multiplyExact(capacity, dim)));
    }

    @Override
    public KvRows copy() {
        return new F16Rows(dim, data.clone());
    }
}

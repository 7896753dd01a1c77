package org.jacap.kv;

import java.util.Arrays;

/**
 * GGML Q8_0 rows: each block of 32 values is {@code d = amax / 127} stored as f16 and
 * {@code q = round(x / d)} (half away from zero, with the inverse of the unrounded d, as
 * ggml's {@code quantize_row_q8_0_ref}); a value reads back as {@code q * d}.
 */
final class Q8_0Rows implements KvRows {
    private static final int QK = KvStorage.Q8_0_BLOCK;
    private final int dim;
    private final int blocksPerRow;
    private final byte[] quants;
    private final short[] scales;

    Q8_0Rows(int dim, int capacity) {
        this(dim, new byte[Math.multiplyExact(capacity, dim)], new short[Math.multiplyExact(capacity, dim / QK)]);
    }

    private Q8_0Rows(int dim, byte[] quants, short[] scales) {
        this.dim = dim;
        this.blocksPerRow = dim / QK;
        this.quants = quants;
        this.scales = scales;
    }

    @Override
    public int dim() {
        return dim;
    }

    @Override
    public int capacity() {
        return quants.length / dim;
    }

    @Override
    public void write(int row, float[] src, int off) {
        for (int b = 0; b < blocksPerRow; b++) {
            int s = off + b * QK;
            float amax = 0f;
            for (int j = 0; j < QK; j++) {
                amax = Math.max(amax, Math.abs(src[s + j]));
            }
            float d = amax / 127;
            float id = d != 0f ? 1.0f / d : 0.0f;
            scales[row * blocksPerRow + b] = Float.floatToFloat16(d);
            int q = row * dim + b * QK;
            for (int j = 0; j < QK; j++) {
                quants[q + j] = (byte) roundAway(src[s + j] * id);
            }
        }
    }

    @Override
    public void read(int row, int count, float[] dst, int dstOff) {
        int blocks = count * blocksPerRow;
        int b0 = row * blocksPerRow;
        for (int b = 0; b < blocks; b++) {
            float d = Float.float16ToFloat(scales[b0 + b]);
            int q = (b0 + b) * QK;
            int o = dstOff + b * QK;
            for (int j = 0; j < QK; j++) {
                dst[o + j] = quants[q + j] * d;
            }
        }
    }

    @Override
    public void move(int from, int to, int count) {
        System.arraycopy(quants, from * dim, quants, to * dim, count * dim);
        System.arraycopy(scales, from * blocksPerRow, scales, to * blocksPerRow, count * blocksPerRow);
    }

    @Override
    public KvRows resized(int capacity) {
        return new Q8_0Rows(
                dim,
                Arrays.copyOf(quants, Math.multiplyExact(capacity, dim)),
                Arrays.copyOf(scales, Math.multiplyExact(capacity, blocksPerRow)));
    }

    @Override
    public KvRows copy() {
        return new Q8_0Rows(dim, quants.clone(), scales.clone());
    }

    /** C's roundf: halves away from zero (Math.round would take -2.5 to -2). */
    private static int roundAway(float x) {
        double a = Math.floor(Math.abs((double) x) + 0.5);
        return (int) (x < 0 ? -a : a);
    }
}

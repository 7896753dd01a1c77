package org.jacap.kv;

/**
 * The rows of one KV head's keys or values in one {@link KvStorage} type. {@link #read} is the one
 * place stored values turn back into floats, for attention and for eviction statistics alike.
 */
sealed interface KvRows permits F32Rows, F16Rows, Q8_0Rows {

    int dim();

    /** Rows this storage holds. */
    int capacity();

    /** Stores {@code dim} floats of {@code src} from {@code off} as row {@code row}, converting to the type. */
    void write(int row, float[] src, int off);

    /** Reads rows {@code [row, row + count)} back as float into {@code dst} from {@code dstOff}. */
    void read(int row, int count, float[] dst, int dstOff);

    /** Moves rows {@code [from, from + count)} to {@code [to, to + count)} (overlap allowed). */
    void move(int from, int to, int count);

    /** The same rows in storage for {@code capacity} rows (at least {@link #capacity()}). */
    KvRows resized(int capacity);

    KvRows copy();
}

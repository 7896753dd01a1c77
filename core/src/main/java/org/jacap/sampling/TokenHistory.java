package org.jacap.sampling;

/** The last {@code capacity} tokens of the context (a ring buffer), oldest first. */
public final class TokenHistory {
    private final int[] ring;
    private int start;
    private int size;

    public TokenHistory(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
        }
        ring = new int[capacity];
    }

    public void add(int token) {
        if (ring.length == 0) {
            return;
        }
        if (size < ring.length) {
            ring[(start + size++) % ring.length] = token;
        } else {
            ring[start] = token;
            start = (start + 1) % ring.length;
        }
    }

    public int size() {
        return size;
    }

    public int capacity() {
        return ring.length;
    }

    /** The i-th retained token, 0 = oldest. */
    public int get(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("history index " + i + " of " + size);
        }
        return ring[(start + i) % ring.length];
    }

    public void clear() {
        start = 0;
        size = 0;
    }
}

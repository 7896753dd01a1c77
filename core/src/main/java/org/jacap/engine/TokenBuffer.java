package org.jacap.engine;

import java.util.Arrays;

/** A growable list of token ids without boxing. */
final class TokenBuffer {
    private int[] ids = new int[64];
    private int size;

    void add(int id) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
        }
        ids[size++] = id;
    }

    void addAll(int[] more) {
        if (size + more.length > ids.length) {
            ids = Arrays.copyOf(ids, Math.max(ids.length * 2, size + more.length));
        }
        System.arraycopy(more, 0, ids, size, more.length);
        size += more.length;
    }

    int get(int i) {
        return ids[i];
    }

    int size() {
        return size;
    }

    /** The backing array (valid in [0, size)); may be replaced by the next add. */
    int[] array() {
        return ids;
    }

    int[] toArray() {
        return Arrays.copyOf(ids, size);
    }

    /** Keeps the first {@code newSize} ids (all of them when there are fewer). */
    void truncate(int newSize) {
        if (newSize < 0) {
            throw new IndexOutOfBoundsException("truncate to " + newSize + " of " + size);
        }
        size = Math.min(size, newSize);
    }

    void clear() {
        size = 0;
    }
}

package org.jacap.tokenizer;

import java.util.Arrays;

/** A growable list of primitive ints: token ids and boundaries without boxing. */
final class IntList {
    private int[] data;
    private int size;

    IntList() {
        this(16);
    }

    IntList(int capacity) {
        data = new int[Math.max(4, capacity)];
    }

    void add(int value) {
        if (size == data.length) {
            data = Arrays.copyOf(data, data.length * 2);
        }
        data[size++] = value;
    }

    void addAll(int[] values) {
        ensure(size + values.length);
        System.arraycopy(values, 0, data, size, values.length);
        size += values.length;
    }

    int get(int index) {
        return data[index];
    }

    int size() {
        return size;
    }

    void clear() {
        size = 0;
    }

    int[] toArray() {
        return Arrays.copyOf(data, size);
    }

    private void ensure(int capacity) {
        if (capacity > data.length) {
            data = Arrays.copyOf(data, Math.max(capacity, data.length * 2));
        }
    }
}

package org.jacap.tokenizer;

import java.util.Arrays;

/**
 * BPE merge ranks keyed by the pair of token ids, packed into one {@code long}: (left, right) →
 * rank, with the merged token per rank. Primitive open addressing keeps the merge loop free of
 * boxing and string building. The first occurrence of a duplicated pair keeps its rank.
 */
final class MergeTable {
    private static final long EMPTY = -1L;

    private final long[] keys;
    private final int[] ranks;
    private final int mask;
    private final int[] resultByRank;
    private final int[] leftByRank;
    private final int[] rightByRank;
    private int size;

    MergeTable(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new long[capacity];
        Arrays.fill(keys, EMPTY);
        ranks = new int[capacity];
        mask = capacity - 1;
        resultByRank = new int[Math.max(1, expected)];
        leftByRank = new int[Math.max(1, expected)];
        rightByRank = new int[Math.max(1, expected)];
        Arrays.fill(resultByRank, -1);
    }

    /** Registers (left, right) → result at {@code rank} unless the pair is already known. */
    void putIfAbsent(int left, int right, int result, int rank) {
        long key = key(left, right);
        int slot = slot(key);
        while (keys[slot] != EMPTY) {
            if (keys[slot] == key) {
                return;
            }
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        ranks[slot] = rank;
        resultByRank[rank] = result;
        leftByRank[rank] = left;
        rightByRank[rank] = right;
        size++;
    }

    /** Rank of merging {@code left} with {@code right}, or -1 when the pair never merges. */
    int rank(int left, int right) {
        long key = key(left, right);
        for (int slot = slot(key); keys[slot] != EMPTY; slot = (slot + 1) & mask) {
            if (keys[slot] == key) {
                return ranks[slot];
            }
        }
        return -1;
    }

    int result(int rank) {
        return resultByRank[rank];
    }

    int left(int rank) {
        return leftByRank[rank];
    }

    int right(int rank) {
        return rightByRank[rank];
    }

    int size() {
        return size;
    }

    private static long key(int left, int right) {
        return ((long) left << 32) | (right & 0xFFFFFFFFL);
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}

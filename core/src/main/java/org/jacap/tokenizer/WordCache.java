package org.jacap.tokenizer;

import java.util.Arrays;

/**
 * Token ids of recently merged words, keyed by the word's code points. Direct-mapped (a new word
 * replaces whatever shared its slot), so memory is bounded and a hit allocates nothing. Entries are
 * immutable and published through an array of references: concurrent readers see either a whole
 * entry or none, without locks.
 */
final class WordCache {
    private record Entry(int hash, int[] word, int[] ids) {}

    private final Entry[] slots;
    private final int mask;

    WordCache(int slots) {
        int capacity = Integer.highestOneBit(Math.max(2, slots - 1)) << 1;
        this.slots = new Entry[capacity];
        this.mask = capacity - 1;
    }

    static int hash(int[] cps, int from, int to) {
        int h = 1;
        for (int i = from; i < to; i++) {
            h = 31 * h + cps[i];
        }
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /** The ids cached for {@code cps[from, to)} (hash from {@link #hash}), or null. */
    int[] get(int[] cps, int from, int to, int hash) {
        Entry e = slots[hash & mask];
        if (e == null || e.hash != hash || e.word.length != to - from) {
            return null;
        }
        return Arrays.equals(e.word, 0, e.word.length, cps, from, to) ? e.ids : null;
    }

    void put(int[] cps, int from, int to, int hash, int[] ids) {
        slots[hash & mask] = new Entry(hash, Arrays.copyOfRange(cps, from, to), ids);
    }
}

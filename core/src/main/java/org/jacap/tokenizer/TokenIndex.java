package org.jacap.tokenizer;

/**
 * Token text → id, looked up directly on a slice of a {@code char[]} so that the merge loops probe
 * candidate strings without allocating them. Open addressing with linear probing; the first id
 * of a duplicated text wins.
 */
final class TokenIndex {
    private final String[] keys;
    private final int[] hashes;
    private final int[] ids;
    private final int mask;
    private final int duplicates;

    TokenIndex(String[] texts) {
        int capacity = Integer.highestOneBit(Math.max(4, texts.length * 2 - 1)) << 1;
        keys = new String[capacity];
        hashes = new int[capacity];
        ids = new int[capacity];
        mask = capacity - 1;
        int dup = 0;
        for (int id = 0; id < texts.length; id++) {
            String t = texts[id];
            int h = mix(t.hashCode());
            int slot = h & mask;
            while (keys[slot] != null && !(hashes[slot] == h && keys[slot].equals(t))) {
                slot = (slot + 1) & mask;
            }
            if (keys[slot] == null) {
                keys[slot] = t;
                hashes[slot] = h;
                ids[slot] = id;
            } else {
                dup++;
            }
        }
        duplicates = dup;
    }

    /** Number of texts that repeat an earlier one (and so are never returned). */
    int duplicates() {
        return duplicates;
    }

    /** Id of {@code text}, or -1. */
    int get(String text) {
        int h = mix(text.hashCode());
        for (int slot = h & mask; keys[slot] != null; slot = (slot + 1) & mask) {
            if (hashes[slot] == h && keys[slot].equals(text)) {
                return ids[slot];
            }
        }
        return -1;
    }

    /** Id of the text {@code chars[from, from+len)}, or -1. */
    int get(char[] chars, int from, int len) {
        int raw = 0;
        for (int i = from, end = from + len; i < end; i++) {
            raw = 31 * raw + chars[i]; // same as String.hashCode
        }
        int h = mix(raw);
        for (int slot = h & mask; keys[slot] != null; slot = (slot + 1) & mask) {
            if (hashes[slot] == h && sameText(keys[slot], chars, from, len)) {
                return ids[slot];
            }
        }
        return -1;
    }

    private static boolean sameText(String key, char[] chars, int from, int len) {
        if (key.length() != len) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (key.charAt(i) != chars[from + i]) {
                return false;
            }
        }
        return true;
    }

    private static int mix(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}

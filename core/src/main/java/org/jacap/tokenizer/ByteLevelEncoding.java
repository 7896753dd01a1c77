package org.jacap.tokenizer;

import java.util.Arrays;

/**
 * GPT-2's reversible byte-to-unicode map: printable Latin-1 bytes map to themselves, the other 68
 * bytes (controls, space, ...) to U+0100 onwards, so every byte sequence is a string of visible
 * characters that byte-level BPE vocabularies are written in.
 */
final class ByteLevelEncoding {
    private static final char[] BYTE_TO_CHAR = new char[256];
    private static final int[] CHAR_TO_BYTE = new int[512];

    static {
        Arrays.fill(CHAR_TO_BYTE, -1);
        int extra = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            char c = printable ? (char) b : (char) (256 + extra++);
            BYTE_TO_CHAR[b] = c;
            CHAR_TO_BYTE[c] = b;
        }
    }

    private ByteLevelEncoding() {}

    static char charOf(int b) {
        return BYTE_TO_CHAR[b & 0xFF];
    }

    /** The byte a mapped character stands for, or -1 when {@code c} is not in the map. */
    static int byteOf(int c) {
        return c >= 0 && c < CHAR_TO_BYTE.length ? CHAR_TO_BYTE[c] : -1;
    }
}

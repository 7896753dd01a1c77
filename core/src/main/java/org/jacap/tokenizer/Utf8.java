package org.jacap.tokenizer;

/** UTF-8 helpers on code points and byte buffers (lone surrogates become U+FFFD, as llama.cpp does). */
final class Utf8 {
    static final int REPLACEMENT = 0xFFFD;

    private Utf8() {}

    /** The code points of {@code s[from, to)}; unpaired surrogates become U+FFFD. */
    static int[] codePoints(CharSequence s, int from, int to) {
        int[] out = new int[to - from];
        int n = 0;
        for (int i = from; i < to; ) {
            char c = s.charAt(i++);
            int cp = c;
            if (Character.isHighSurrogate(c)) {
                if (i < to && Character.isLowSurrogate(s.charAt(i))) {
                    cp = Character.toCodePoint(c, s.charAt(i++));
                } else {
                    cp = REPLACEMENT;
                }
            } else if (Character.isLowSurrogate(c)) {
                cp = REPLACEMENT;
            }
            out[n++] = cp;
        }
        return n == out.length ? out : java.util.Arrays.copyOf(out, n);
    }

    /** Writes the UTF-8 encoding of {@code cp} at {@code out[pos]}; returns the new position. */
    static int encode(int cp, byte[] out, int pos) {
        if (cp < 0x80) {
            out[pos++] = (byte) cp;
        } else if (cp < 0x800) {
            out[pos++] = (byte) (0xC0 | (cp >> 6));
            out[pos++] = (byte) (0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[pos++] = (byte) (0xE0 | (cp >> 12));
            out[pos++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            out[pos++] = (byte) (0x80 | (cp & 0x3F));
        } else {
            out[pos++] = (byte) (0xF0 | (cp >> 18));
            out[pos++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
            out[pos++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            out[pos++] = (byte) (0x80 | (cp & 0x3F));
        }
        return pos;
    }

    /** Number of bytes a sequence starting with lead byte {@code b} claims (1 for invalid leads). */
    static int sequenceLength(int b) {
        b &= 0xFF;
        if (b < 0xC2) {
            return 1;
        }
        if (b < 0xE0) {
            return 2;
        }
        if (b < 0xF0) {
            return 3;
        }
        return b < 0xF5 ? 4 : 1;
    }

    /**
     * Length of the longest prefix of {@code buf[0, len)} that does not end inside an incomplete but
     * so-far valid multi-byte sequence: the bytes after it may still be completed by later input.
     */
    static int completePrefix(byte[] buf, int len) {
        // An incomplete tail is at most 3 bytes: a lead byte followed by 0-2 continuation bytes.
        for (int back = 1; back <= Math.min(3, len); back++) {
            int b = buf[len - back] & 0xFF;
            if ((b & 0xC0) == 0x80) {
                continue; // continuation byte: keep looking for its lead
            }
            int need = sequenceLength(b);
            if (need > back && continuationsValid(buf, len - back, back)) {
                return len - back;
            }
            return len;
        }
        return len;
    }

    // Checks the bytes after the lead, including the tighter second-byte ranges of E0, ED, F0, F4.
    private static boolean continuationsValid(byte[] buf, int lead, int count) {
        int b0 = buf[lead] & 0xFF;
        for (int i = 1; i < count; i++) {
            int b = buf[lead + i] & 0xFF;
            if ((b & 0xC0) != 0x80) {
                return false;
            }
            if (i == 1) {
                if ((b0 == 0xE0 && b < 0xA0)
                        || (b0 == 0xED && b > 0x9F)
                        || (b0 == 0xF0 && b < 0x90)
                        || (b0 == 0xF4 && b > 0x8F)) {
                    return false;
                }
            }
        }
        return true;
    }
}

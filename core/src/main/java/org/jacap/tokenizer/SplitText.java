package org.jacap.tokenizer;

/**
 * The code points of a text being pre-tokenized, with the two string views that regex rules run
 * on, built on first use: llama.cpp's "collapsed" text (one char per code point: ASCII kept, any
 * other code point replaced by a stand-in for its category) and the plain text with non-ASCII
 * whitespace turned into {@code \u000B} (what llama.cpp feeds {@code std::wregex}).
 */
final class SplitText {
    static final char OTHER = '\u00D0';
    static final char NUMBER = '\u00D1';
    static final char LETTER = '\u00D2';
    static final char PUNCTUATION = '\u00D3';
    static final char ACCENT_MARK = '\u00D4';
    static final char SYMBOL = '\u00D5';

    final int[] cps;
    private String collapsed;
    private String plain;
    /** For {@link #plain()} with surrogate pairs: char index of each code point index, and back. */
    private int[] charOfCp;

    private int[] cpOfChar;

    SplitText(int[] cps) {
        this.cps = cps;
    }

    int length() {
        return cps.length;
    }

    /** Flags of the code point at {@code pos} when it lies in {@code [from, to)}, else 0. */
    int flags(int pos, int from, int to) {
        return pos >= from && pos < to ? CodepointFlags.of(cps[pos]) : 0;
    }

    /** The code point at {@code pos} when it lies in {@code [from, to)}, else -1. */
    int cp(int pos, int from, int to) {
        return pos >= from && pos < to ? cps[pos] : -1;
    }

    String collapsed() {
        if (collapsed == null) {
            char[] out = new char[cps.length];
            for (int i = 0; i < cps.length; i++) {
                int cp = cps[i];
                if (cp < 128) {
                    out[i] = (char) cp;
                    continue;
                }
                int flags = CodepointFlags.of(cp);
                if ((flags & CodepointFlags.WHITESPACE) != 0) {
                    out[i] = '\u000B';
                    continue;
                }
                out[i] = switch (flags & CodepointFlags.CATEGORY_MASK) {
                    case CodepointFlags.NUMBER -> NUMBER;
                    case CodepointFlags.LETTER -> LETTER;
                    case CodepointFlags.PUNCTUATION -> PUNCTUATION;
                    case CodepointFlags.ACCENT_MARK -> ACCENT_MARK;
                    case CodepointFlags.SYMBOL -> SYMBOL;
                    default -> OTHER;
                };
            }
            collapsed = new String(out);
        }
        return collapsed;
    }

    String plain() {
        if (plain == null) {
            StringBuilder sb = new StringBuilder(cps.length);
            boolean supplementary = false;
            for (int cp : cps) {
                if (cp > 0x7F && CodepointFlags.isWhitespace(cp)) {
                    cp = 0x0B;
                }
                supplementary |= cp > 0xFFFF;
                sb.appendCodePoint(cp);
            }
            plain = sb.toString();
            if (supplementary) {
                charOfCp = new int[cps.length + 1];
                cpOfChar = new int[plain.length() + 1];
                int c = 0;
                for (int i = 0; i < cps.length; i++) {
                    charOfCp[i] = c;
                    for (int k = 0; k < Character.charCount(cps[i]); k++) {
                        cpOfChar[c++] = i; // both halves of a surrogate pair belong to code point i
                    }
                }
                charOfCp[cps.length] = c;
                cpOfChar[c] = cps.length;
            }
        }
        return plain;
    }

    /** Index in {@link #plain()} of code point {@code cpIndex}. */
    int plainIndex(int cpIndex) {
        plain();
        return charOfCp == null ? cpIndex : charOfCp[cpIndex];
    }

    /** Code point index of char {@code charIndex} of {@link #plain()}. */
    int cpIndex(int charIndex) {
        return cpOfChar == null ? charIndex : cpOfChar[charIndex];
    }
}

package org.jacap.tokenizer;

/**
 * The Llama-3 / cl100k pre-tokenizer regex
 * {@code (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+}
 * as a hand-written scanner (llama.cpp's {@code unicode_regex_split_custom_llama3}), linear time.
 */
final class Llama3Split implements SplitRule {

    @Override
    public void split(SplitText t, int from, int to, IntList ends) {
        int pos = from;
        while (pos < to) {
            int cp = t.cps[pos];
            int flags = t.flags(pos, from, to);

            // (?i:'s|'t|'re|'ve|'m|'ll|'d)
            if (cp == '\'' && pos + 1 < to) {
                int next = asciiLower(t.cps[pos + 1]);
                if (next == 's' || next == 't' || next == 'm' || next == 'd') {
                    ends.add(pos += 2);
                    continue;
                }
                if (pos + 2 < to) {
                    int next2 = asciiLower(t.cps[pos + 2]);
                    if ((next == 'r' && next2 == 'e')
                            || (next == 'v' && next2 == 'e')
                            || (next == 'l' && next2 == 'l')) {
                        ends.add(pos += 3);
                        continue;
                    }
                }
            }

            // [^\r\n\p{L}\p{N}]?\p{L}+
            if (!(cp == '\r' || cp == '\n' || CodepointFlags.isNumber(flags))) {
                if (CodepointFlags.isLetter(flags) || CodepointFlags.isLetter(t.flags(pos + 1, from, to))) {
                    pos++;
                    while (CodepointFlags.isLetter(t.flags(pos, from, to))) {
                        pos++;
                    }
                    ends.add(pos);
                    continue;
                }
            }

            // \p{N}{1,3}
            if (CodepointFlags.isNumber(flags)) {
                int start = pos;
                while (CodepointFlags.isNumber(t.flags(pos, from, to))) {
                    if (++pos - start >= 3) {
                        ends.add(pos);
                        start = pos;
                    }
                }
                if (pos > start) {
                    ends.add(pos);
                }
                continue;
            }

            //  ?[^\s\p{L}\p{N}]+[\r\n]*
            int flags2 = cp == ' ' ? t.flags(pos + 1, from, to) : flags;
            if (Gpt2Split.isOther(flags2)) {
                pos += cp == ' ' ? 1 : 0;
                while (Gpt2Split.isOther(flags2)) {
                    flags2 = t.flags(++pos, from, to);
                }
                int c2 = t.cp(pos, from, to);
                while (c2 == '\r' || c2 == '\n') {
                    c2 = t.cp(++pos, from, to);
                }
                ends.add(pos);
                continue;
            }

            int spaces = 0;
            int afterLastNewline = 0;
            while (CodepointFlags.isSpace(t.flags(pos + spaces, from, to))) {
                int c2 = t.cps[pos + spaces];
                if (c2 == '\r' || c2 == '\n') {
                    afterLastNewline = pos + spaces + 1;
                }
                spaces++;
            }
            // \s*[\r\n]+
            if (afterLastNewline > 0) {
                ends.add(pos = afterLastNewline);
                continue;
            }
            // \s+(?!\S)
            if (spaces > 1 && t.cp(pos + spaces, from, to) != -1) {
                ends.add(pos += spaces - 1);
                continue;
            }
            // \s+
            if (spaces > 0) {
                ends.add(pos += spaces);
                continue;
            }
            ends.add(++pos);
        }
    }

    private static int asciiLower(int c) {
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    }
}

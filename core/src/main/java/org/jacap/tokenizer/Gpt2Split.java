package org.jacap.tokenizer;

/**
 * The GPT-2 pre-tokenizer regex {@code 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+}
 * as a hand-written scanner (llama.cpp's {@code unicode_regex_split_custom_gpt2}), linear time.
 */
final class Gpt2Split implements SplitRule {

    @Override
    public void split(SplitText t, int from, int to, IntList ends) {
        int pos = from;
        while (pos < to) {
            int cp = t.cps[pos];
            int flags = t.flags(pos, from, to);

            // 's|'t|'re|'ve|'m|'ll|'d
            if (cp == '\'' && pos + 1 < to) {
                int next = t.cps[pos + 1];
                if (next == 's' || next == 't' || next == 'm' || next == 'd') {
                    ends.add(pos += 2);
                    continue;
                }
                if (pos + 2 < to) {
                    int next2 = t.cps[pos + 2];
                    if ((next == 'r' && next2 == 'e')
                            || (next == 'v' && next2 == 'e')
                            || (next == 'l' && next2 == 'l')) {
                        ends.add(pos += 3);
                        continue;
                    }
                }
            }

            int flags2 = cp == ' ' ? t.flags(pos + 1, from, to) : flags;
            // ' ?\p{L}+'
            if (CodepointFlags.isLetter(flags2)) {
                pos += cp == ' ' ? 1 : 0;
                while (CodepointFlags.isLetter(flags2)) {
                    flags2 = t.flags(++pos, from, to);
                }
                ends.add(pos);
                continue;
            }
            // ' ?\p{N}+'
            if (CodepointFlags.isNumber(flags2)) {
                pos += cp == ' ' ? 1 : 0;
                while (CodepointFlags.isNumber(flags2)) {
                    flags2 = t.flags(++pos, from, to);
                }
                ends.add(pos);
                continue;
            }
            // ' ?[^\s\p{L}\p{N}]+'
            if (isOther(flags2)) {
                pos += cp == ' ' ? 1 : 0;
                while (isOther(flags2)) {
                    flags2 = t.flags(++pos, from, to);
                }
                ends.add(pos);
                continue;
            }

            int spaces = 0;
            while (CodepointFlags.isSpace(t.flags(pos + spaces, from, to))) {
                spaces++;
            }
            // '\s+(?!\S)': a run of spaces followed by a non-space leaves its last space to that word
            if (spaces > 1 && t.cp(pos + spaces, from, to) != -1) {
                ends.add(pos += spaces - 1);
                continue;
            }
            // '\s+'
            if (spaces > 0) {
                ends.add(pos += spaces);
                continue;
            }
            ends.add(++pos); // no rule matched: the character stands alone
        }
    }

    /** Neither whitespace, letter nor number, and inside the fragment. */
    static boolean isOther(int flags) {
        return flags != 0 && (flags & (CodepointFlags.WHITESPACE | CodepointFlags.LETTER | CodepointFlags.NUMBER)) == 0;
    }
}

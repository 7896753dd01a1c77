package org.jacap.tokenizer;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts special-token texts out of the input before the tokenizer proper sees it, as llama.cpp's
 * {@code tokenizer_st_partition}: tokens are taken longest first, each one splitting every
 * remaining text fragment at its occurrences. User-defined tokens are always split out; control and
 * unknown tokens only when special tokens are parsed. A prefix trie first finds which of the
 * candidates occur at all, so vocabularies with thousands of added tokens stay fast.
 */
final class SpecialTokenSplitter {
    /** A piece of the input: a special token ({@code token >= 0}) or the raw text {@code [start, end)}. */
    record Fragment(int token, int start, int end) {
        boolean isText() {
            return token < 0;
        }
    }

    private static final class TrieNode {
        final Map<Character, TrieNode> children = new HashMap<>();
        int token = -1;
    }

    private final Vocabulary vocab;
    private final TrieNode root = new TrieNode();
    /** Characters some special token starts with: most text positions are skipped with one bit test. */
    private final BitSet firstChars = new BitSet(1 << 16);
    /** Position of each special token in the longest-first order. */
    private final Map<Integer, Integer> order = new HashMap<>();

    SpecialTokenSplitter(Vocabulary vocab) {
        this.vocab = vocab;
        int[] specials = vocab.specialTokens;
        for (int i = 0; i < specials.length; i++) {
            int id = specials[i];
            order.put(id, i);
            TrieNode node = root;
            firstChars.set(vocab.texts[id].charAt(0));
            for (char c : vocab.texts[id].toCharArray()) {
                node = node.children.computeIfAbsent(c, k -> new TrieNode());
            }
            if (node.token < 0) {
                node.token = id;
            }
        }
    }

    List<Fragment> split(String text, boolean parseSpecial) {
        return split(text, parseSpecial, null);
    }

    /**
     * As {@link #split(String, boolean)}; no token is split out where it overlaps a character set
     * in {@code literal} (null: none), so message text inside a chat template stays plain text.
     */
    List<Fragment> split(String text, boolean parseSpecial, BitSet literal) {
        List<Fragment> fragments = new ArrayList<>();
        if (text.isEmpty()) {
            return fragments;
        }
        fragments.add(new Fragment(-1, 0, text.length()));
        for (int id : presentTokens(text, parseSpecial)) {
            fragments = splitAt(fragments, text, id, literal);
        }
        return fragments;
    }

    // The candidate special tokens that occur anywhere in text, in longest-first order.
    private int[] presentTokens(String text, boolean parseSpecial) {
        if (root.children.isEmpty()) {
            return new int[0];
        }
        int skip = parseSpecial ? 0 : TokenAttributes.CONTROL | TokenAttributes.UNKNOWN;
        boolean[] present = new boolean[vocab.specialTokens.length];
        int count = 0;
        for (int i = 0; i < text.length(); i++) {
            if (!firstChars.get(text.charAt(i))) {
                continue;
            }
            TrieNode node = root;
            for (int j = i; j < text.length(); j++) {
                node = node.children.get(text.charAt(j));
                if (node == null) {
                    break;
                }
                if (node.token >= 0 && (vocab.attrs[node.token] & skip) == 0) {
                    int slot = order.get(node.token);
                    if (!present[slot]) {
                        present[slot] = true;
                        count++;
                    }
                }
            }
        }
        int[] ids = new int[count];
        for (int slot = 0, k = 0; slot < present.length; slot++) {
            if (present[slot]) {
                ids[k++] = vocab.specialTokens[slot];
            }
        }
        return ids;
    }

    private List<Fragment> splitAt(List<Fragment> fragments, String text, int id, BitSet literal) {
        String token = vocab.texts[id];
        boolean lstrip = vocab.has(id, TokenAttributes.LSTRIP);
        boolean rstrip = vocab.has(id, TokenAttributes.RSTRIP);
        List<Fragment> out = new ArrayList<>(fragments.size() + 4);
        for (Fragment f : fragments) {
            if (!f.isText()) {
                out.add(f);
                continue;
            }
            int base = f.start();
            int end = f.end();
            while (base < end) {
                int match = text.indexOf(token, base, end);
                while (match >= 0 && overlapsLiteral(literal, match, match + token.length())) {
                    match = text.indexOf(token, match + 1, end);
                }
                if (match < 0) {
                    out.add(new Fragment(-1, base, end));
                    break;
                }
                int leftEnd = match;
                if (lstrip) {
                    while (leftEnd > base && isCSpace(text.charAt(leftEnd - 1))) {
                        leftEnd--;
                    }
                }
                if (leftEnd > base) {
                    out.add(new Fragment(-1, base, leftEnd));
                }
                out.add(new Fragment(id, match, match + token.length()));
                base = match + token.length();
                if (rstrip) {
                    while (base < end && isCSpace(text.charAt(base))) {
                        base++;
                    }
                }
            }
        }
        return out;
    }

    private static boolean overlapsLiteral(BitSet literal, int from, int to) {
        if (literal == null) {
            return false;
        }
        int next = literal.nextSetBit(from);
        return next >= 0 && next < to;
    }

    /** C {@code isspace} in the "C" locale, which llama.cpp uses for the strip flags. */
    static boolean isCSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }
}

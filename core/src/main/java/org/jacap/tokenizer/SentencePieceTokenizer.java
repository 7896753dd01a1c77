package org.jacap.tokenizer;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.gguf.GgufMetadata;

/**
 * SentencePiece-style tokenizer (llama.cpp's {@code llm_tokenizer_spm}): spaces become {@code ▁},
 * a space is prefixed to the text (and to text after a special token), then adjacent symbols are
 * merged greedily, always the pair whose merged text is the token with the highest score (ties →
 * leftmost). Symbols that never form a token fall back to {@code <0xXX>} byte tokens.
 */
public final class SentencePieceTokenizer extends VocabularyTokenizer {
    private static final char SPACE_MARK = '\u2581';

    /** Token of each byte value for byte fallback, or -1. */
    private final int[] byteTokens = new int[256];

    private final boolean wordsMergeAlone;

    SentencePieceTokenizer(GgufMetadata metadata, List<String> warnings) {
        super(new Vocabulary(metadata, new VocabularyDefaults(1, 2, 0, true, false, true, false), warnings), false);
        wordsMergeAlone = wordsMergeAlone(vocab.texts);
        for (int b = 0; b < 256; b++) {
            int id = vocab.index.get(String.format("<0x%02X>", b));
            if (id < 0 && b < 0x80) {
                id = vocab.index.get(String.valueOf((char) b));
            }
            byteTokens[b] = id >= 0 ? id : vocab.unknownId;
        }
    }

    @Override
    public int[] encode(String text, boolean addBos, boolean parseSpecial) {
        return encode(text, addBos, parseSpecial, wordsMergeAlone);
    }

    /** {@code perWord} false forces one merge run over each whole text fragment (the reference behaviour). */
    @Override
    public int[] encode(String text, boolean addBos, BitSet literal) {
        return encode(text, addBos, splitter.split(text, true, literal), wordsMergeAlone);
    }

    int[] encode(String text, boolean addBos, boolean parseSpecial, boolean perWord) {
        return encode(text, addBos, splitter.split(text, parseSpecial), perWord);
    }

    private int[] encode(String text, boolean addBos, List<SpecialTokenSplitter.Fragment> fragments, boolean perWord) {
        IntList out = new IntList(text.length() / 3 + 4);
        if (addBos) {
            if (vocab.bosId < 0) {
                throw new JacapException("this vocabulary has no BOS token");
            }
            out.add(vocab.bosId);
        }
        boolean afterSpecial = true; // the first text fragment gets the space prefix too
        for (SpecialTokenSplitter.Fragment f : fragments) {
            if (f.isText()) {
                encodeText(text, f.start(), f.end(), vocab.addSpacePrefix && afterSpecial, perWord, out);
                afterSpecial = false;
            } else {
                out.add(f.token());
                afterSpecial = true;
            }
        }
        return out.toArray();
    }

    private void encodeText(String text, int from, int to, boolean prefixSpace, boolean perWord, IntList out) {
        int offset = prefixSpace ? 1 : 0;
        char[] chars = new char[to - from + offset];
        if (prefixSpace) {
            chars[0] = SPACE_MARK;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            chars[i - from + offset] = c == ' ' ? SPACE_MARK : c;
        }
        Merge merge = new Merge(chars);
        if (!perWord) {
            merge.run(0, chars.length, out);
            return;
        }
        // No token bridges "x|▁": merging each word alone gives exactly the whole-text result.
        int start = 0;
        for (int i = 1; i < chars.length; i++) {
            if (chars[i] == SPACE_MARK && chars[i - 1] != SPACE_MARK) {
                merge.run(start, i, out);
                start = i;
            }
        }
        merge.run(start, chars.length, out);
    }

    /** True when no token has {@code ▁} right after another character: then no merge crosses a word start. */
    private static boolean wordsMergeAlone(String[] texts) {
        for (String t : texts) {
            for (int i = 1; i < t.length(); i++) {
                if (t.charAt(i) == SPACE_MARK && t.charAt(i - 1) != SPACE_MARK) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Merge runs over spans of one text: symbols are code-point spans of {@code chars} in a linked
     * list. The arrays are reused from run to run.
     */
    private final class Merge {
        private final char[] chars;
        private int[] start = new int[64];
        private int[] length = new int[64];
        private int[] prev = new int[64];
        private int[] next = new int[64];
        private final BigramQueue queue = new BigramQueue(64);

        Merge(char[] chars) {
            this.chars = chars;
        }

        void run(int from, int to, IntList out) {
            if (start.length < to - from) {
                int cap = Math.max(to - from, start.length * 2);
                start = new int[cap];
                length = new int[cap];
                prev = new int[cap];
                next = new int[cap];
            }
            int n = 0;
            for (int i = from; i < to; ) {
                int len = Character.isHighSurrogate(chars[i]) && i + 1 < to && Character.isLowSurrogate(chars[i + 1])
                        ? 2
                        : 1;
                start[n] = i;
                length[n++] = len;
                i += len;
            }
            if (n == 0) {
                return;
            }
            for (int i = 0; i < n; i++) {
                prev[i] = i - 1;
                next[i] = i + 1 < n ? i + 1 : -1;
            }
            queue.clear();
            for (int i = 1; i < n; i++) {
                tryAdd(i - 1, i);
            }
            while (!queue.isEmpty()) {
                int left = BigramQueue.left(queue.pop());
                int right = next[left];
                // stale: one side was merged away or grew since this pair was queued
                if (length[left] == 0 || right < 0 || length[left] + length[right] != queue.poppedSize) {
                    continue;
                }
                length[left] += length[right];
                length[right] = 0;
                next[left] = next[right];
                if (next[right] >= 0) {
                    prev[next[right]] = left;
                }
                tryAdd(prev[left], left);
                tryAdd(left, next[left]);
            }
            for (int i = 0; i != -1; i = next[i]) {
                emit(i, out);
            }
        }

        private void tryAdd(int left, int right) {
            if (left < 0 || right < 0) {
                return;
            }
            int size = length[left] + length[right];
            int id = vocab.index.get(chars, start[left], size);
            if (id >= 0) {
                queue.push(vocab.scores[id], left, size);
            }
        }

        // A symbol is a token, or (never merged, unknown character) its UTF-8 bytes as byte tokens.
        private void emit(int symbol, IntList out) {
            int id = vocab.index.get(chars, start[symbol], length[symbol]);
            if (id >= 0) {
                out.add(id);
                return;
            }
            int[] cps = Utf8.codePoints(new String(chars, start[symbol], length[symbol]), 0, length[symbol]);
            byte[] bytes = new byte[4];
            for (int cp : cps) {
                int n = Utf8.encode(cp, bytes, 0);
                for (int k = 0; k < n; k++) {
                    int t = byteTokens[bytes[k] & 0xFF];
                    if (t >= 0) {
                        out.add(t);
                    }
                }
            }
        }
    }

    /**
     * Candidate merges, best first: highest score, then leftmost, as llama.cpp orders them. Each
     * entry is one {@code long} (score made sortable in the high half, left index in the low half)
     * plus the merged length that tells stale entries apart; no indirection, so the heap stays
     * cache-friendly on long texts.
     */
    private static final class BigramQueue {
        private long[] keys;
        private int[] sizes;
        private int count;

        BigramQueue(int capacity) {
            keys = new long[capacity];
            sizes = new int[capacity];
        }

        boolean isEmpty() {
            return count == 0;
        }

        void clear() {
            count = 0;
        }

        /** Smaller keys come first: descending score, then ascending left index. */
        static long key(float score, int left) {
            int bits = Float.floatToIntBits(score);
            int ordered = bits ^ ((bits >> 31) & 0x7FFFFFFF); // monotonic in score
            long descending = (long) Integer.MAX_VALUE - ordered; // 0 .. 2^32-1
            return ((descending << 32) | left) ^ Long.MIN_VALUE; // signed order = unsigned order
        }

        static int left(long key) {
            return (int) key;
        }

        void push(float score, int left, int size) {
            if (count == keys.length) {
                keys = Arrays.copyOf(keys, count * 2);
                sizes = Arrays.copyOf(sizes, count * 2);
            }
            long key = key(score, left);
            int i = count++;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (keys[parent] <= key) {
                    break;
                }
                keys[i] = keys[parent];
                sizes[i] = sizes[parent];
                i = parent;
            }
            keys[i] = key;
            sizes[i] = size;
        }

        /** The best entry's key; its size is then in {@link #poppedSize}. */
        long pop() {
            long top = keys[0];
            poppedSize = sizes[0];
            long last = keys[--count];
            int lastSize = sizes[count];
            int i = 0;
            while (true) {
                int child = 2 * i + 1;
                if (child >= count) {
                    break;
                }
                if (child + 1 < count && keys[child + 1] < keys[child]) {
                    child++;
                }
                if (keys[child] >= last) {
                    break;
                }
                keys[i] = keys[child];
                sizes[i] = sizes[child];
                i = child;
            }
            keys[i] = last;
            sizes[i] = lastSize;
            return top;
        }

        int poppedSize;
    }

    @Override
    public String model() {
        return "llama";
    }
}

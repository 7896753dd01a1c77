package org.jacap.tokenizer;

import java.util.Arrays;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.gguf.GgufMetadata;

/**
 * SentencePiece-style tokenizer (llama.cpp's {@code llm_tokenizer_spm}): spaces become {@code ▁},
 * a space is prefixed to the text (and to text after a special token), then adjacent symbols are
 * merged greedily, always the pair whose merged text is the token with the highest score (ties →
 * leftmost). Symbols that never form a token fall back to {@code <0xXX>} byte tokens.
 */
public final class SentencePieceTokenizer implements Tokenizer {
    private static final char SPACE_MARK = '\u2581';

    private final Vocabulary vocab;
    private final SpecialTokenSplitter splitter;
    private final TokenDecoder decoder;
    /** Token of each byte value for byte fallback, or -1. */
    private final int[] byteTokens = new int[256];

    SentencePieceTokenizer(GgufMetadata metadata, List<String> warnings) {
        vocab = new Vocabulary(metadata, new VocabularyDefaults(1, 2, 0, true, false, true, false), warnings);
        splitter = new SpecialTokenSplitter(vocab);
        decoder = new TokenDecoder(vocab, false);
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
        IntList out = new IntList(text.length() / 3 + 4);
        if (addBos) {
            if (vocab.bosId < 0) {
                throw new JacapException("this vocabulary has no BOS token");
            }
            out.add(vocab.bosId);
        }
        boolean afterSpecial = true; // the first text fragment gets the space prefix too
        for (SpecialTokenSplitter.Fragment f : splitter.split(text, parseSpecial)) {
            if (f.isText()) {
                encodeText(text, f.start(), f.end(), vocab.addSpacePrefix && afterSpecial, out);
                afterSpecial = false;
            } else {
                out.add(f.token());
                afterSpecial = true;
            }
        }
        return out.toArray();
    }

    private void encodeText(String text, int from, int to, boolean prefixSpace, IntList out) {
        int offset = prefixSpace ? 1 : 0;
        char[] chars = new char[to - from + offset];
        if (prefixSpace) {
            chars[0] = SPACE_MARK;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            chars[i - from + offset] = c == ' ' ? SPACE_MARK : c;
        }
        new Merge(chars).run(out);
    }

    /** One merge run over a text: symbols are code-point spans of {@code chars}, linked in a list. */
    private final class Merge {
        private final char[] chars;
        private final int[] start;
        private final int[] length;
        private final int[] prev;
        private final int[] next;
        private final BigramQueue queue;

        Merge(char[] chars) {
            this.chars = chars;
            int n = 0;
            int[] s = new int[chars.length];
            int[] l = new int[chars.length];
            for (int i = 0; i < chars.length; ) {
                int len = Character.isHighSurrogate(chars[i]) && i + 1 < chars.length
                        && Character.isLowSurrogate(chars[i + 1]) ? 2 : 1;
                s[n] = i;
                l[n++] = len;
                i += len;
            }
            start = s;
            length = l;
            prev = new int[n];
            next = new int[n];
            for (int i = 0; i < n; i++) {
                prev[i] = i - 1;
                next[i] = i + 1 < n ? i + 1 : -1;
            }
            queue = new BigramQueue(Math.max(4, n));
        }

        void run(IntList out) {
            int n = prev.length;
            if (n == 0) {
                return;
            }
            for (int i = 1; i < n; i++) {
                tryAdd(i - 1, i);
            }
            while (!queue.isEmpty()) {
                int e = queue.pop();
                int left = queue.left(e);
                int right = queue.right(e);
                // stale: one side was merged away or grew since this pair was queued
                if (length[left] == 0 || length[right] == 0 || length[left] + length[right] != queue.size(e)) {
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
                queue.push(vocab.scores[id], left, right, size);
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

    /** Max-heap of candidate merges by score; ties go to the leftmost pair, as llama.cpp orders them. */
    private static final class BigramQueue {
        private float[] score;
        private int[] left;
        private int[] right;
        private int[] size;
        private int entries;
        private int[] heap;
        private int heapSize;

        BigramQueue(int capacity) {
            score = new float[capacity];
            left = new int[capacity];
            right = new int[capacity];
            size = new int[capacity];
            heap = new int[capacity];
        }

        boolean isEmpty() {
            return heapSize == 0;
        }

        int left(int e) {
            return left[e];
        }

        int right(int e) {
            return right[e];
        }

        int size(int e) {
            return size[e];
        }

        void push(float s, int l, int r, int sz) {
            if (entries == score.length) {
                int cap = entries * 2;
                score = Arrays.copyOf(score, cap);
                left = Arrays.copyOf(left, cap);
                right = Arrays.copyOf(right, cap);
                size = Arrays.copyOf(size, cap);
                heap = Arrays.copyOf(heap, cap);
            }
            int e = entries++;
            score[e] = s;
            left[e] = l;
            right[e] = r;
            size[e] = sz;
            int i = heapSize++;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!before(e, heap[parent])) {
                    break;
                }
                heap[i] = heap[parent];
                i = parent;
            }
            heap[i] = e;
        }

        int pop() {
            int top = heap[0];
            int last = heap[--heapSize];
            int i = 0;
            while (true) {
                int child = 2 * i + 1;
                if (child >= heapSize) {
                    break;
                }
                if (child + 1 < heapSize && before(heap[child + 1], heap[child])) {
                    child++;
                }
                if (!before(heap[child], last)) {
                    break;
                }
                heap[i] = heap[child];
                i = child;
            }
            heap[i] = last;
            return top;
        }

        private boolean before(int a, int b) {
            return score[a] > score[b] || (score[a] == score[b] && left[a] < left[b]);
        }
    }

    @Override
    public String decode(int[] ids) {
        return decoder.decode(ids);
    }

    @Override
    public String piece(int id) {
        return decoder.piece(id);
    }

    @Override
    public StreamingDecoder streamingDecoder() {
        return decoder.streaming();
    }

    @Override
    public int vocabSize() {
        return vocab.size();
    }

    @Override
    public int bosId() {
        return vocab.bosId;
    }

    @Override
    public int eosId() {
        return vocab.eosId;
    }

    @Override
    public int eotId() {
        return vocab.eotId;
    }

    @Override
    public int unknownId() {
        return vocab.unknownId;
    }

    @Override
    public boolean isEndOfGeneration(int id) {
        return vocab.isEndOfGeneration(id);
    }

    @Override
    public boolean addBosByDefault() {
        return vocab.addBos;
    }

    @Override
    public boolean addEosByDefault() {
        return vocab.addEos;
    }

    @Override
    public int tokenId(String text) {
        return vocab.index.get(text);
    }

    @Override
    public String model() {
        return "llama";
    }

    @Override
    public List<String> warnings() {
        return List.copyOf(vocab.warnings());
    }
}

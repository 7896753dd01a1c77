package org.jacap.tokenizer;

import java.util.BitSet;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.gguf.GgufMetadata;

/**
 * Byte-level BPE tokenizer (llama.cpp's {@code llm_tokenizer_bpe}): the pre-tokenizer named by
 * {@code tokenizer.ggml.pre} cuts text into words; each word's UTF-8 bytes, written with the GPT-2
 * byte map, are merged by rank from {@code tokenizer.ggml.merges}. Merge pairs are looked up by
 * token ids in a primitive table; merged words are cached (bounded, lock-free).
 */
public final class BytePairTokenizer extends VocabularyTokenizer {
    private static final int CACHE_SLOTS = 1 << 16;
    private static final int CACHE_MAX_WORD = 64;

    private final PreTokenizer preTokenizer;
    private final MergeTable merges;
    /** Token of each byte's mapped character, or -1. */
    private final int[] byteTokens = new int[256];

    private final WordCache wordCache = new WordCache(CACHE_SLOTS);

    BytePairTokenizer(GgufMetadata metadata, List<String> warnings) {
        PreTokenizer pre = PreTokenizer.forName(preTokenizerName(metadata), warnings);
        // llama.cpp defaults BOS/EOS to 11 for BPE; no id is safer than a wrong one when metadata is silent.
        super(
                new Vocabulary(
                        metadata,
                        new VocabularyDefaults(-1, -1, -1, pre.addBos(), false, false, pre.cleanSpaces()),
                        warnings),
                true);
        preTokenizer = pre;
        for (int b = 0; b < 256; b++) {
            byteTokens[b] = vocab.index.get(String.valueOf(ByteLevelEncoding.charOf(b)));
        }
        merges = loadMerges(metadata, warnings);
    }

    private static String preTokenizerName(GgufMetadata metadata) {
        try {
            return metadata.getString("tokenizer.ggml.pre", null);
        } catch (RuntimeException e) {
            throw new JacapException("tokenizer: " + e.getMessage(), e);
        }
    }

    private MergeTable loadMerges(GgufMetadata metadata, List<String> warnings) {
        if (!metadata.contains("tokenizer.ggml.merges")) {
            throw new JacapException("tokenizer: byte-level BPE vocabulary without 'tokenizer.ggml.merges'");
        }
        String[] lines;
        try {
            lines = metadata.getStringArray("tokenizer.ggml.merges");
        } catch (RuntimeException e) {
            throw new JacapException("tokenizer: " + e.getMessage(), e);
        }
        MergeTable table = new MergeTable(lines.length);
        int skipped = 0;
        char[] buf = new char[64];
        for (int rank = 0; rank < lines.length; rank++) {
            String line = lines[rank];
            int space = line.indexOf(' ', 1);
            if (space < 0) {
                skipped++;
                continue;
            }
            // "a b": look up a, b and the merged "ab" on one buffer, without building strings
            if (buf.length < line.length()) {
                buf = new char[line.length() * 2];
            }
            line.getChars(0, space, buf, 0);
            line.getChars(space + 1, line.length(), buf, space);
            int merged = line.length() - 1;
            int left = vocab.index.get(buf, 0, space);
            int right = vocab.index.get(buf, space, merged - space);
            int result = vocab.index.get(buf, 0, merged);
            if (left < 0 || right < 0 || result < 0) {
                skipped++; // a merge whose parts or result are not tokens can never produce a token
                continue;
            }
            table.putIfAbsent(left, right, result, rank);
        }
        if (skipped > 0) {
            warnings.add(
                    skipped + " of " + lines.length + " merges ignored (malformed, or parts not in the vocabulary)");
        }
        return table;
    }

    @Override
    public int[] encode(String text, boolean addBos, boolean parseSpecial) {
        return encode(text, addBos, splitter.split(text, parseSpecial));
    }

    @Override
    public int[] encode(String text, boolean addBos, BitSet literal) {
        return encode(text, addBos, splitter.split(text, true, literal));
    }

    private int[] encode(String text, boolean addBos, List<SpecialTokenSplitter.Fragment> fragments) {
        IntList out = new IntList(text.length() / 3 + 4);
        if (addBos) {
            if (vocab.bosId < 0) {
                throw new JacapException("this vocabulary has no BOS token");
            }
            out.add(vocab.bosId);
        }
        Scratch scratch = new Scratch(new BpeMerger(merges));
        for (SpecialTokenSplitter.Fragment f : fragments) {
            if (f.isText()) {
                encodeText(text, f.start(), f.end(), scratch, out);
            } else {
                out.add(f.token());
            }
        }
        return out.toArray();
    }

    /** Per-call buffers: the merger and the byte / symbol arrays of the current word. */
    private static final class Scratch {
        final BpeMerger merger;
        byte[] bytes = new byte[256];
        int[] symbols = new int[256];
        char[] mapped = new char[256];
        final IntList word = new IntList();

        Scratch(BpeMerger merger) {
            this.merger = merger;
        }

        void ensure(int n) {
            if (bytes.length < n) {
                bytes = new byte[n * 2];
                symbols = new int[n * 2];
                mapped = new char[n * 2];
            }
        }
    }

    private void encodeText(String text, int from, int to, Scratch scratch, IntList out) {
        SplitText split = new SplitText(Utf8.codePoints(text, from, to));
        IntList ends = preTokenizer.split(split);
        int start = 0;
        for (int i = 0; i < ends.size(); i++) {
            int end = ends.get(i);
            if (end > start) {
                encodeWord(split.cps, start, end, scratch, out);
            }
            start = end;
        }
    }

    private void encodeWord(int[] cps, int from, int to, Scratch s, IntList out) {
        boolean cacheable = to - from <= CACHE_MAX_WORD;
        int hash = cacheable ? WordCache.hash(cps, from, to) : 0;
        if (cacheable) {
            int[] cached = wordCache.get(cps, from, to, hash);
            if (cached != null) {
                out.addAll(cached);
                return;
            }
        }
        s.ensure((to - from) * 4);
        int n = 0;
        for (int i = from; i < to; i++) {
            n = Utf8.encode(cps[i], s.bytes, n);
        }
        s.word.clear();
        int whole = -1;
        if (preTokenizer.ignoreMerges()) {
            for (int i = 0; i < n; i++) {
                s.mapped[i] = ByteLevelEncoding.charOf(s.bytes[i]);
            }
            whole = vocab.index.get(s.mapped, 0, n);
        }
        if (whole >= 0) {
            s.word.add(whole);
        } else {
            for (int i = 0; i < n; i++) {
                s.symbols[i] = byteTokens[s.bytes[i] & 0xFF];
            }
            s.merger.merge(s.symbols, n, s.word);
        }
        int[] ids = s.word.toArray();
        out.addAll(ids);
        if (cacheable) {
            wordCache.put(cps, from, to, hash, ids);
        }
    }

    /** Name of the pre-tokenizer in use ("default" when the metadata named an unknown one). */
    public String preTokenizer() {
        return preTokenizer.name();
    }

    @Override
    public String model() {
        return "gpt2";
    }
}

package org.jacap.bench.synthetic;

import java.util.HexFormat;

/**
 * A SentencePiece-style vocabulary (GGUF {@code tokenizer.ggml.model = llama}) of any size:
 * {@code <unk> <s> </s>}, the 256 byte tokens {@code <0x00>…<0xFF>} so every text encodes, then
 * distinct pieces ("▁", ASCII characters, then lowercase letter strings with and without the "▁"
 * word prefix). Scores fall with the id, so shorter, earlier pieces merge first.
 */
public record SyntheticVocabulary(String[] tokens, float[] scores, int[] types) {
    /** GGUF token types (llama.cpp llama_token_type). */
    public static final int NORMAL = 1;

    public static final int UNKNOWN = 2;
    public static final int CONTROL = 3;
    public static final int BYTE = 6;
    public static final int UNK_ID = 0;
    public static final int BOS_ID = 1;
    public static final int EOS_ID = 2;
    private static final int SPECIAL_AND_BYTES = 3 + 256;

    public static SyntheticVocabulary of(int size) {
        if (size < SPECIAL_AND_BYTES + 1) {
            throw new IllegalArgumentException("vocabulary needs at least " + (SPECIAL_AND_BYTES + 1) + " tokens");
        }
        String[] tokens = new String[size];
        float[] scores = new float[size];
        int[] types = new int[size];
        tokens[UNK_ID] = "<unk>";
        types[UNK_ID] = UNKNOWN;
        tokens[BOS_ID] = "<s>";
        types[BOS_ID] = CONTROL;
        tokens[EOS_ID] = "</s>";
        types[EOS_ID] = CONTROL;
        HexFormat hex = HexFormat.of().withUpperCase();
        for (int b = 0; b < 256; b++) {
            tokens[3 + b] = "<0x" + hex.toHexDigits((byte) b) + ">";
            types[3 + b] = BYTE;
        }
        PieceSequence pieces = new PieceSequence();
        for (int id = SPECIAL_AND_BYTES; id < size; id++) {
            tokens[id] = pieces.next();
            types[id] = NORMAL;
            scores[id] = -(id - SPECIAL_AND_BYTES);
        }
        return new SyntheticVocabulary(tokens, scores, types);
    }

    public int size() {
        return tokens.length;
    }

    /** "▁", then the printable ASCII characters, then for length 1, 2, … every lowercase string w as "▁w" and w. */
    private static final class PieceSequence {
        private int stage = -1;
        private int ascii = '!';
        private int length = 1;
        private long index;
        private boolean prefixed = true;

        String next() {
            if (stage < 0) {
                stage = 0;
                return "\u2581";
            }
            if (stage == 0) {
                if (ascii <= '~') {
                    return Character.toString(ascii++);
                }
                stage = 1;
            }
            long count = pow26(length);
            if (index == count) {
                length++;
                index = 0;
                count = pow26(length);
            }
            String word = word(index, length);
            if (prefixed) {
                prefixed = false;
                return "\u2581" + word;
            }
            prefixed = true;
            index++;
            // Single letters were already emitted as ASCII characters: only their "▁" forms are new.
            return length == 1 ? next() : word;
        }

        private static long pow26(int n) {
            long p = 1;
            for (int i = 0; i < n; i++) {
                p *= 26;
            }
            return p;
        }

        private static String word(long index, int length) {
            char[] c = new char[length];
            for (int i = length - 1; i >= 0; i--) {
                c[i] = (char) ('a' + index % 26);
                index /= 26;
            }
            return new String(c);
        }
    }
}

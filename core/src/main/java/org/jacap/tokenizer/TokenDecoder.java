package org.jacap.tokenizer;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import org.jacap.JacapException;

/**
 * Token ids back to text, llama.cpp's {@code token_to_piece} and {@code detokenize}: normal pieces
 * are unescaped (SentencePiece {@code ▁} → space, or the byte-level map reversed), byte tokens
 * become raw bytes, control tokens render as nothing unless asked for, and the bytes of a whole
 * sequence are assembled before UTF-8 decoding so split characters come out whole.
 */
final class TokenDecoder {
    private static final byte[] EMPTY = new byte[0];

    private final Vocabulary vocab;
    /** Bytes of each token as text ({@code special = false}): control and unknown tokens are empty. */
    private final byte[][] text;
    /** Bytes of each token for display ({@code special = true}): control tokens show their name. */
    private final byte[][] display;

    TokenDecoder(Vocabulary vocab, boolean byteLevel) {
        this.vocab = vocab;
        int n = vocab.size();
        text = new byte[n][];
        display = new byte[n][];
        int hidden = TokenAttributes.UNKNOWN | TokenAttributes.CONTROL;
        for (int id = 0; id < n; id++) {
            byte[] shown = pieceBytes(id, byteLevel);
            display[id] = shown;
            text[id] = vocab.has(id, hidden) ? EMPTY : shown;
        }
    }

    private byte[] pieceBytes(int id, boolean byteLevel) {
        String t = vocab.texts[id];
        int attr = vocab.attrs[id];
        if ((attr & (TokenAttributes.UNKNOWN | TokenAttributes.CONTROL | TokenAttributes.USER_DEFINED)) != 0) {
            return t.getBytes(StandardCharsets.UTF_8);
        }
        if ((attr & TokenAttributes.NORMAL) != 0) {
            return byteLevel ? byteLevelDecode(t) : t.replace('\u2581', ' ').getBytes(StandardCharsets.UTF_8);
        }
        if ((attr & TokenAttributes.BYTE) != 0) {
            int b = parseByteToken(t);
            return b >= 0 ? new byte[] {(byte) b} : t.getBytes(StandardCharsets.UTF_8);
        }
        return EMPTY; // undefined and unused tokens have no text
    }

    /** The byte of a {@code <0xXX>} token, or -1 when the text is not of that form. */
    static int parseByteToken(String t) {
        if (t.length() == 6 && t.startsWith("<0x") && t.charAt(5) == '>') {
            int hi = Character.digit(t.charAt(3), 16);
            int lo = Character.digit(t.charAt(4), 16);
            if (hi >= 0 && lo >= 0) {
                return hi * 16 + lo;
            }
        }
        return -1;
    }

    // Reverses the GPT-2 byte map; a character outside it keeps its own UTF-8 bytes.
    private static byte[] byteLevelDecode(String t) {
        byte[] out = new byte[t.length() * 4];
        int n = 0;
        for (int i = 0; i < t.length(); ) {
            int cp = t.codePointAt(i);
            i += Character.charCount(cp);
            int b = ByteLevelEncoding.byteOf(cp);
            if (b >= 0) {
                out[n++] = (byte) b;
            } else {
                n = Utf8.encode(cp, out, n);
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    byte[] textBytes(int id) {
        return text[check(id)];
    }

    /** The piece of one token for display; a lone byte that is not a character shows the token's own text. */
    String piece(int id) {
        byte[] b = display[check(id)];
        return isValidUtf8(b) ? new String(b, StandardCharsets.UTF_8) : vocab.texts[id];
    }

    private static boolean isValidUtf8(byte[] b) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder(); // reports malformed input by default
        return decoder.decode(ByteBuffer.wrap(b), CharBuffer.allocate(b.length), true)
                        .isUnderflow()
                && decoder.flush(CharBuffer.allocate(1)).isUnderflow();
    }

    /**
     * Text of a sequence, as llama.cpp's detokenize without special rendering: with a space prefix
     * vocabulary the first token loses its leading space, unless a BOS comes first (its own empty
     * piece takes the strip), which is why a prompt that started with BOS decodes with " " in front.
     */
    String decode(int[] ids) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(ids.length * 4);
        boolean removeSpace = vocab.addSpacePrefix;
        for (int id : ids) {
            byte[] b = text[check(id)];
            int skip = removeSpace && b.length > 0 && b[0] == ' ' ? 1 : 0;
            out.write(b, skip, b.length - skip);
            removeSpace = false;
        }
        String s = out.toString(StandardCharsets.UTF_8);
        return vocab.cleanSpaces ? SpaceCleanup.apply(s) : s;
    }

    StreamingDecoder streaming() {
        return new StreamingDecoder(this::textBytes);
    }

    private int check(int id) {
        if (id < 0 || id >= text.length) {
            throw new JacapException("token id " + id + " is outside the vocabulary (0.." + (text.length - 1) + ")");
        }
        return id;
    }
}

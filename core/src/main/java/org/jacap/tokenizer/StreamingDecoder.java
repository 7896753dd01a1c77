package org.jacap.tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * Turns generated token ids into text as they arrive. Byte tokens may carry a fraction of a UTF-8
 * character; {@link #accept} returns only complete characters and holds an unfinished sequence
 * back until the tokens that finish it arrive, so a stream never shows a broken character.
 * Control tokens (BOS, EOS, end of turn) produce no text. No leading space is stripped: the
 * stream continues text that already exists. Not thread-safe; one decoder per stream.
 */
public final class StreamingDecoder {
    private final IntFunction<byte[]> pieces;
    private byte[] pending = new byte[16];
    private int length;

    StreamingDecoder(IntFunction<byte[]> pieces) {
        this.pieces = pieces;
    }

    /** Appends token {@code id}; returns the text that is now complete (possibly empty). */
    public String accept(int id) {
        byte[] piece = pieces.apply(id);
        if (length + piece.length > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, length + piece.length));
        }
        System.arraycopy(piece, 0, pending, length, piece.length);
        length += piece.length;
        int complete = Utf8.completePrefix(pending, length);
        return take(complete);
    }

    /** Returns whatever is held back; bytes that never became a valid character turn into U+FFFD. */
    public String flush() {
        return take(length);
    }

    private String take(int count) {
        if (count == 0) {
            return "";
        }
        String text = new String(pending, 0, count, StandardCharsets.UTF_8);
        System.arraycopy(pending, count, pending, 0, length - count);
        length -= count;
        return text;
    }
}

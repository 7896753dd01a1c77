package org.jacap.tokenizer;

import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * A rendered chat prompt that remembers which characters came from message text. Only the
 * template's own text may hold special tokens: {@link #encode(Tokenizer, boolean)} parses
 * {@code <|im_start|>} and the like there and nowhere else, so a message cannot forge a turn.
 *
 * @param text    the prompt as the template renders it
 * @param literal the characters of {@code text} that are message text (role or content)
 */
public record ChatPrompt(String text, BitSet literal) {
    /** Marks the start and end of message text while a template renders (Unicode noncharacters). */
    static final char OPEN = '\uFDD0';

    static final char CLOSE = '\uFDD1';

    public ChatPrompt {
        Objects.requireNonNull(text, "text");
        literal = (BitSet) literal.clone();
    }

    @Override
    public BitSet literal() {
        return (BitSet) literal.clone();
    }

    /** Token ids: special tokens from the template, message text always as plain text. */
    public int[] encode(Tokenizer tokenizer, boolean addBos) {
        return tokenizer.encode(text, addBos, literal);
    }

    /** The prompt from character {@code from} on (what a new turn adds to an earlier rendering). */
    public ChatPrompt from(int from) {
        return new ChatPrompt(text.substring(from), literal.get(from, Math.max(from, text.length())));
    }

    /** Wraps message text in the markers, dropping any marker characters the text itself holds. */
    static ChatMessage mark(ChatMessage m) {
        String content = m.content().replace(String.valueOf(OPEN), "").replace(String.valueOf(CLOSE), "");
        return new ChatMessage(m.role(), OPEN + content + CLOSE);
    }

    static List<ChatMessage> markAll(List<ChatMessage> messages) {
        return messages.stream().map(ChatPrompt::mark).toList();
    }

    /** The rendering without its markers, with the marked characters recorded as literal. */
    static ChatPrompt unmark(CharSequence marked) {
        StringBuilder out = new StringBuilder(marked.length());
        BitSet literal = new BitSet();
        int depth = 0;
        for (int i = 0; i < marked.length(); i++) {
            char c = marked.charAt(i);
            if (c == OPEN) {
                depth++;
            } else if (c == CLOSE) {
                depth = Math.max(0, depth - 1);
            } else {
                if (depth > 0) {
                    literal.set(out.length());
                }
                out.append(c);
            }
        }
        return new ChatPrompt(out.toString(), literal);
    }

    static boolean isMarker(char c) {
        return c == OPEN || c == CLOSE;
    }
}

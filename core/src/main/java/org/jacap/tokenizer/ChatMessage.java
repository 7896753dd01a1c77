package org.jacap.tokenizer;

import java.util.Objects;

/** One turn of a conversation: a role ("system", "user", "assistant", or another the template knows) and its text. */
public record ChatMessage(String role, String content) {
    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
    }

    public static ChatMessage system(String content) {
        return new ChatMessage("system", content);
    }

    public static ChatMessage user(String content) {
        return new ChatMessage("user", content);
    }

    public static ChatMessage assistant(String content) {
        return new ChatMessage("assistant", content);
    }
}

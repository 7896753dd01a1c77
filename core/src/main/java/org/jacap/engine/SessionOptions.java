package org.jacap.engine;

import java.util.Objects;
import org.jacap.JacapException;
import org.jacap.tokenizer.ChatTemplate;

/**
 * How a session is set up.
 *
 * @param contextLength tokens the session may hold; 0 = the model's own context length
 * @param kvPolicy      what happens when the cache would outgrow the context ({@link KvPolicy#NONE}: an error)
 * @param systemPrompt  the system message that opens every chat (kept across {@link Session#reset()});
 *                      null or empty for none
 * @param chatTemplate  how chat turns are rendered; null for the model's own template
 */
public record SessionOptions(int contextLength, KvPolicy kvPolicy, String systemPrompt, ChatTemplate chatTemplate) {

    private static final SessionOptions DEFAULTS = new SessionOptions(0, KvPolicy.NONE, null, null);

    public SessionOptions {
        if (contextLength < 0) {
            throw new JacapException("context length must be >= 0 (got " + contextLength + "; 0 = the model's)");
        }
        Objects.requireNonNull(kvPolicy, "kvPolicy");
        if (systemPrompt != null && systemPrompt.isEmpty()) {
            systemPrompt = null;
        }
    }

    public static SessionOptions defaults() {
        return DEFAULTS;
    }

    public SessionOptions withContextLength(int n) {
        return new SessionOptions(n, kvPolicy, systemPrompt, chatTemplate);
    }

    public SessionOptions withKvPolicy(KvPolicy policy) {
        return new SessionOptions(contextLength, policy, systemPrompt, chatTemplate);
    }

    public SessionOptions withSystemPrompt(String prompt) {
        return new SessionOptions(contextLength, kvPolicy, prompt, chatTemplate);
    }

    /** Renders chats with {@code template} (e.g. {@link ChatTemplate#fromTemplate(String, org.jacap.tokenizer.Tokenizer)}) instead of the model's. */
    public SessionOptions withChatTemplate(ChatTemplate template) {
        return new SessionOptions(contextLength, kvPolicy, systemPrompt, template);
    }
}

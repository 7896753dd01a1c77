package org.jacap.engine;

import java.util.Objects;
import org.jacap.JacapException;
import org.jacap.kv.KvCacheTypes;
import org.jacap.tokenizer.ChatTemplate;

/**
 * How a session is set up.
 *
 * @param contextLength tokens the session may hold; 0 = the model's own context length
 * @param eviction      what happens when the cache would outgrow the context ({@link EvictionMode#NONE}: an error)
 * @param systemPrompt  the system message that opens every chat (kept across {@link Session#reset()});
 *                      null or empty for none
 * @param chatTemplate  how chat turns are rendered; null for the model's own template
 * @param cacheTypes    how the KV cache stores keys and values ({@link KvCacheTypes#DEFAULT}: f16, as llama.cpp)
 */
public record SessionOptions(
        int contextLength,
        EvictionMode eviction,
        String systemPrompt,
        ChatTemplate chatTemplate,
        KvCacheTypes cacheTypes) {

    private static final SessionOptions DEFAULTS =
            new SessionOptions(0, EvictionMode.NONE, null, null, KvCacheTypes.DEFAULT);

    public SessionOptions {
        if (contextLength < 0) {
            throw new JacapException("context length must be >= 0 (got " + contextLength + "; 0 = the model's)");
        }
        Objects.requireNonNull(eviction, "eviction");
        Objects.requireNonNull(cacheTypes, "cacheTypes");
        if (systemPrompt != null && systemPrompt.isEmpty()) {
            systemPrompt = null;
        }
    }

    public static SessionOptions defaults() {
        return DEFAULTS;
    }

    public SessionOptions withContextLength(int n) {
        return new SessionOptions(n, eviction, systemPrompt, chatTemplate, cacheTypes);
    }

    public SessionOptions withEviction(EvictionMode policy) {
        return new SessionOptions(contextLength, policy, systemPrompt, chatTemplate, cacheTypes);
    }

    public SessionOptions withSystemPrompt(String prompt) {
        return new SessionOptions(contextLength, eviction, prompt, chatTemplate, cacheTypes);
    }

    /** Renders chats with {@code template} (e.g. {@link ChatTemplate#fromTemplate(String, org.jacap.tokenizer.Tokenizer)}) instead of the model's. */
    public SessionOptions withChatTemplate(ChatTemplate template) {
        return new SessionOptions(contextLength, eviction, systemPrompt, template, cacheTypes);
    }

    public SessionOptions withCacheTypes(KvCacheTypes types) {
        return new SessionOptions(contextLength, eviction, systemPrompt, chatTemplate, types);
    }
}

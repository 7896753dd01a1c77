package org.jacap.engine;

import java.util.Objects;
import org.jacap.JacapException;
import org.jacap.kv.KvCacheTypes;

/**
 * How a session is set up.
 *
 * @param contextLength tokens the session may hold; 0 = the model's own context length
 * @param eviction      what happens when the cache would outgrow the context ({@link EvictionMode#NONE}: an error)
 * @param systemPrompt  the system message that opens every chat (kept across {@link Session#reset()});
 *                      null or empty for none
 * @param cacheTypes    how the KV cache stores keys and values ({@link KvCacheTypes#DEFAULT}: f16, as llama.cpp)
 */
public record SessionOptions(int contextLength, EvictionMode eviction, String systemPrompt, KvCacheTypes cacheTypes) {

    private static final SessionOptions DEFAULTS = new SessionOptions(0, EvictionMode.NONE, null, KvCacheTypes.DEFAULT);

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
        return new SessionOptions(n, eviction, systemPrompt, cacheTypes);
    }

    public SessionOptions withEviction(EvictionMode policy) {
        return new SessionOptions(contextLength, policy, systemPrompt, cacheTypes);
    }

    public SessionOptions withSystemPrompt(String prompt) {
        return new SessionOptions(contextLength, eviction, prompt, cacheTypes);
    }

    public SessionOptions withCacheTypes(KvCacheTypes types) {
        return new SessionOptions(contextLength, eviction, systemPrompt, types);
    }
}

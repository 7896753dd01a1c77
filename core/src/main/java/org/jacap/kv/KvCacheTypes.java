package org.jacap.kv;

import java.util.Objects;

/**
 * The storage types of the KV cache's keys and values (llama.cpp's {@code -ctk/-ctv}).
 *
 * @param keys   how keys are stored
 * @param values how values are stored
 */
public record KvCacheTypes(KvStorage keys, KvStorage values) {
    /** llama.cpp's default: f16 keys and values. */
    public static final KvCacheTypes DEFAULT = new KvCacheTypes(KvStorage.F16, KvStorage.F16);

    /** Exact float storage, as the llama.cpp reference fixtures were made with. */
    public static final KvCacheTypes F32 = new KvCacheTypes(KvStorage.F32, KvStorage.F32);

    public KvCacheTypes {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(values, "values");
    }

    /** {@code f16} when both are the same type, else {@code k=q8_0 v=f16}. */
    public String describe() {
        return keys == values ? keys.label() : "k=" + keys.label() + " v=" + values.label();
    }
}

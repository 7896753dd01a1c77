package org.jacap.engine;

import org.jacap.kv.eviction.EvictionSettings;

/**
 * What a session does when its KV cache would outgrow the context.
 *
 * <p>Seam for the eviction task: it adds policies here (the KV cache then keeps a budget of entries
 * and generation may run past the context length), and the {@link Session} calls them after prefill
 * and during decode. Today there is only {@link None}.
 */
public sealed interface KvPolicy permits KvPolicy.None, KvPolicy.Evict {

    /** Keeps every entry; a prompt plus requested tokens larger than the context is an error. */
    KvPolicy NONE = new None();

    /** Whether this policy frees cache room, so that the context length is not a hard limit. */
    boolean evicts();

    /** The policy's name as the CLI spells it. */
    String name();

    /** No eviction. */
    record None() implements KvPolicy {
        @Override
        public boolean evicts() {
            return false;
        }

        @Override
        public String name() {
            return "none";
        }
    }

    /** An eviction policy with a prompt ratio and/or a per-head budget: see {@link EvictionSettings}. */
    static KvPolicy evict(EvictionSettings settings) {
        return settings == null ? NONE : new Evict(settings);
    }

    /**
     * Evicts with {@code settings}: prompts are compressed after evaluation and, with a budget,
     * the cache stays within budget + slack entries per head while positions run on to the context.
     */
    record Evict(EvictionSettings settings) implements KvPolicy {
        public Evict {
            java.util.Objects.requireNonNull(settings, "settings");
        }

        @Override
        public boolean evicts() {
            return true;
        }

        @Override
        public String name() {
            return settings.policy().scorer().name();
        }
    }
}

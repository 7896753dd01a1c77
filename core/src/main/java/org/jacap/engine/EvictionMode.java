package org.jacap.engine;

import org.jacap.kv.eviction.EvictionSettings;

/**
 * Whether a session evicts KV-cache entries, and with which settings: {@link #NONE} keeps every
 * entry (the context is a hard limit); {@link Evict} runs an eviction schedule (the scorer and
 * allocator of an {@link org.jacap.kv.eviction.EvictionPolicy}, a ratio and/or a budget) after
 * each prompt and during decoding. Formerly {@code KvPolicy}: the policy proper is the scorer.
 */
public sealed interface EvictionMode permits EvictionMode.None, EvictionMode.Evict {

    /** Keeps every entry; a prompt plus requested tokens larger than the context is an error. */
    EvictionMode NONE = new None();

    /** Whether this policy frees cache room, so that the context length is not a hard limit. */
    boolean evicts();

    /** The policy's name as the CLI spells it. */
    String name();

    /** No eviction. */
    record None() implements EvictionMode {
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
    static EvictionMode evict(EvictionSettings settings) {
        return settings == null ? NONE : new Evict(settings);
    }

    /**
     * Evicts with {@code settings}: prompts are compressed after evaluation and, with a budget,
     * the cache stays within budget + slack entries per head while positions run on to the context.
     */
    record Evict(EvictionSettings settings) implements EvictionMode {
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

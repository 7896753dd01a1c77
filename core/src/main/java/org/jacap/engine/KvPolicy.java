package org.jacap.engine;

/**
 * What a session does when its KV cache would outgrow the context.
 *
 * <p>Seam for the eviction task: it adds policies here (the KV cache then keeps a budget of entries
 * and generation may run past the context length), and the {@link Session} calls them after prefill
 * and during decode. Today there is only {@link None}.
 */
public sealed interface KvPolicy permits KvPolicy.None {

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
}

package org.jacap.server;

import java.util.List;
import org.jacap.engine.KvCacheStats;
import org.jacap.engine.Session;
import org.jacap.tokenizer.ChatMessage;

/**
 * One conversation place: a session (its own KV cache) used by one request at a time, and what it
 * answered last, so that the pool can send a continuing conversation back to it.
 */
final class Slot {
    final int id;
    final Session session;
    private List<ChatMessage> lastConversation = List.of();
    private long lastUsed;
    private volatile KvCacheStats stats;

    Slot(int id, Session session) {
        this.id = id;
        this.session = session;
        this.stats = session.kvCacheStats();
    }

    /** How many leading messages of {@code conversation} this slot's history shares (used under the pool's lock). */
    int sharedMessages(List<ChatMessage> conversation) {
        int n = 0;
        while (n < lastConversation.size()
                && n < conversation.size()
                && lastConversation.get(n).equals(conversation.get(n))) {
            n++;
        }
        return n;
    }

    long lastUsed() {
        return lastUsed;
    }

    /** After a request: remember the conversation and the cache figures for /metrics. */
    void finished(List<ChatMessage> history, long tick) {
        this.lastConversation = List.copyOf(history);
        this.lastUsed = tick;
        this.stats = session.kvCacheStats();
    }

    /** The KV figures as of the end of the last request (the session is not read while it generates). */
    KvCacheStats stats() {
        return stats;
    }
}

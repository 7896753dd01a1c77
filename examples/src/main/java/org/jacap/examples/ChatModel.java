package org.jacap.examples;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jacap.JacapException;
import org.jacap.engine.CancellationToken;
import org.jacap.engine.Engine;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.KvCacheStats;
import org.jacap.engine.Session;
import org.jacap.engine.SessionOptions;

/**
 * The non-UI half of the chat window: one session, replies generated on a worker thread, a stop
 * that keeps the conversation, and the KV cache's figures published after every token for a
 * display to poll. The listener is called on the worker thread.
 */
public final class ChatModel implements AutoCloseable {

    /** What a reply does, as it happens. */
    public interface Listener {
        void text(String piece);

        void finished(GenerationResult result);

        void failed(String message);
    }

    private final Session session;
    private final GenerationOptions options;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jacap-chat");
        t.setDaemon(true);
        return t;
    });
    private volatile CancellationToken running;
    private volatile KvCacheStats kv;

    public ChatModel(Engine engine, SessionOptions sessionOptions, GenerationOptions options) {
        this.session = engine.newSession(sessionOptions);
        this.options = options;
        this.kv = session.kvCacheStats();
    }

    /** Starts the reply to {@code message}; a message sent while one runs waits its turn. */
    public void send(String message, Listener listener) {
        CancellationToken token = new CancellationToken();
        worker.execute(() -> {
            running = token;
            try {
                GenerationResult r = session.chat(message, options.withCancellation(token), (id, text) -> {
                    kv = session.kvCacheStats();
                    if (!text.isEmpty()) {
                        listener.text(text);
                    }
                    return true;
                });
                kv = session.kvCacheStats();
                listener.finished(r);
            } catch (JacapException | IllegalStateException e) {
                listener.failed(e.getMessage());
            } finally {
                running = null;
            }
        });
    }

    /** Stops the reply being generated (the part shown stays in the conversation). */
    public void stop() {
        CancellationToken t = running;
        if (t != null) {
            t.cancel();
        }
    }

    /** The KV cache as of the last token (safe to read from any thread). */
    public KvCacheStats kvCache() {
        return kv;
    }

    /** The number of messages so far; read it when no reply runs. */
    public int messages() {
        return session.history().size();
    }

    @Override
    public void close() {
        stop();
        worker.shutdown();
        session.close();
    }
}

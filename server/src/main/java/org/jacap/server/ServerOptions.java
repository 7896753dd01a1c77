package org.jacap.server;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import org.jacap.JacapException;
import org.jacap.engine.EvictionMode;

/**
 * How {@code jacap serve} runs.
 *
 * @param host           address to bind; must be a loopback address (the server has no TLS)
 * @param port           TCP port; 0 picks a free one
 * @param parallel       conversations generated at the same time (slots), each with its own KV cache
 * @param queue          requests that may wait for a slot; beyond them a request gets 429
 * @param contextLength  tokens per slot; 0 = the model's own (with a KV budget: the position limit, 0 = none)
 * @param kvPolicy       each slot's KV eviction (a budget keeps its memory bounded however long it runs)
 * @param apiKey         required as {@code Authorization: Bearer KEY} when not null
 * @param maxBodyBytes   larger request bodies get 413
 * @param maxTokens      the most tokens one request may ask for (and the default when it asks for none)
 * @param requestTimeout a generation running longer is stopped (finish_reason "length")
 */
public record ServerOptions(
        String host,
        int port,
        int parallel,
        int queue,
        int contextLength,
        EvictionMode kvPolicy,
        String apiKey,
        int maxBodyBytes,
        int maxTokens,
        Duration requestTimeout) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;

    public ServerOptions {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(kvPolicy, "kvPolicy");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        requireLoopback(host);
        check(port >= 0 && port <= 65535, "--port must be in [0, 65535] (got " + port + ")");
        check(parallel >= 1 && parallel <= 256, "--parallel must be in [1, 256] (got " + parallel + ")");
        check(queue >= 0, "--queue must be >= 0 (got " + queue + ")");
        check(contextLength >= 0, "--ctx must be >= 0 (got " + contextLength + "; 0 = the model's)");
        check(maxBodyBytes >= 1024, "--max-body must be >= 1024 bytes (got " + maxBodyBytes + ")");
        check(maxTokens >= 1, "--max-tokens must be >= 1 (got " + maxTokens + ")");
        check(!requestTimeout.isNegative() && !requestTimeout.isZero(), "--timeout must be > 0 seconds");
        if (apiKey != null && apiKey.isBlank()) {
            throw new JacapException("--api-key must not be empty");
        }
    }

    /** 127.0.0.1:8080, one slot, 64 queued, the model's context, no eviction, no key, 8 MiB, 4096 tokens, 10 min. */
    public static ServerOptions defaults() {
        return new ServerOptions(
                DEFAULT_HOST, DEFAULT_PORT, 1, 64, 0, EvictionMode.NONE, null, 8 << 20, 4096, Duration.ofMinutes(10));
    }

    public ServerOptions withPort(int p) {
        return new ServerOptions(
                host, p, parallel, queue, contextLength, kvPolicy, apiKey, maxBodyBytes, maxTokens, requestTimeout);
    }

    public ServerOptions withParallel(int n) {
        return new ServerOptions(
                host, port, n, queue, contextLength, kvPolicy, apiKey, maxBodyBytes, maxTokens, requestTimeout);
    }

    public ServerOptions withQueue(int n) {
        return new ServerOptions(
                host, port, parallel, n, contextLength, kvPolicy, apiKey, maxBodyBytes, maxTokens, requestTimeout);
    }

    public ServerOptions withEviction(EvictionMode p) {
        return new ServerOptions(
                host, port, parallel, queue, contextLength, p, apiKey, maxBodyBytes, maxTokens, requestTimeout);
    }

    public ServerOptions withContextLength(int n) {
        return new ServerOptions(
                host, port, parallel, queue, n, kvPolicy, apiKey, maxBodyBytes, maxTokens, requestTimeout);
    }

    public ServerOptions withApiKey(String key) {
        return new ServerOptions(
                host, port, parallel, queue, contextLength, kvPolicy, key, maxBodyBytes, maxTokens, requestTimeout);
    }

    public ServerOptions withMaxBodyBytes(int n) {
        return new ServerOptions(
                host, port, parallel, queue, contextLength, kvPolicy, apiKey, n, maxTokens, requestTimeout);
    }

    public ServerOptions withMaxTokens(int n) {
        return new ServerOptions(
                host, port, parallel, queue, contextLength, kvPolicy, apiKey, maxBodyBytes, n, requestTimeout);
    }

    public ServerOptions withRequestTimeout(Duration d) {
        return new ServerOptions(
                host, port, parallel, queue, contextLength, kvPolicy, apiKey, maxBodyBytes, maxTokens, d);
    }

    private static void requireLoopback(String host) {
        boolean loopback;
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            loopback = all.length > 0;
            for (InetAddress a : all) {
                loopback &= a.isLoopbackAddress();
            }
        } catch (UnknownHostException e) {
            throw new JacapException("--host '" + host + "' is not a known address");
        }
        check(
                loopback,
                "--host must be a loopback address such as 127.0.0.1, ::1 or localhost (got '" + host
                        + "'): the server has no TLS; put a reverse proxy in front to serve others");
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new JacapException(message);
        }
    }
}

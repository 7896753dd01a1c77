package org.jacap.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jacap.engine.Engine;
import org.jacap.engine.SessionOptions;
import org.jacap.tokenizer.Tokenizer;

/**
 * {@code jacap serve}: an OpenAI-compatible HTTP server on loopback, one virtual thread per
 * request. It answers {@code /health} (503) and {@code /metrics} from the start and everything
 * else once {@link #ready} hands it the loaded model.
 *
 * <pre>{@code
 * JacapServer server = JacapServer.start(ServerOptions.defaults().withPort(0));
 * server.ready(Engine.load(path, EngineOptions.defaults()), "my-model");
 * // ... http://127.0.0.1:{server.port()}/v1/chat/completions
 * server.close();
 * }</pre>
 */
public final class JacapServer implements AutoCloseable {
    private static final Set<String> OPEN_PATHS = Set.of("/health", "/v1/health");

    private final ServerOptions options;
    private final HttpServer http;
    private final ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "jacap-server-timer");
        t.setDaemon(true);
        return t;
    });
    private final Metrics metrics = new Metrics();
    private final byte[] apiKey;

    private volatile Engine engine;
    private volatile String modelName;
    private volatile SlotPool pool;
    private volatile GenerationEndpoint generation;

    private JacapServer(ServerOptions options, HttpServer http) {
        this.options = options;
        this.http = http;
        this.apiKey = options.apiKey() == null ? null : options.apiKey().getBytes(StandardCharsets.UTF_8);
    }

    /** Binds and starts answering (503 until {@link #ready}). */
    public static JacapServer start(ServerOptions options) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(options.host(), options.port()), 0);
        JacapServer server = new JacapServer(options, http);
        http.createContext("/", server::handle);
        http.setExecutor(server.requests);
        http.start();
        return server;
    }

    /** The model is loaded: create the slots and serve. The engine stays the caller's to close. */
    public synchronized void ready(Engine loaded, String name) {
        if (engine != null) {
            throw new IllegalStateException("the server already has a model");
        }
        SessionOptions sessionOptions = SessionOptions.defaults()
                .withContextLength(options.contextLength())
                .withEviction(options.kvPolicy());
        List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < options.parallel(); i++) {
            slots.add(new Slot(i, loaded.newSession(sessionOptions)));
        }
        SlotPool p = new SlotPool(slots, options.queue());
        this.generation = new GenerationEndpoint(loaded, name, p, metrics, options, timer);
        this.modelName = name;
        this.pool = p;
        this.engine = loaded;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    /** {@code http://host:port} */
    public URI baseUri() {
        String host = http.getAddress().getAddress().getHostAddress();
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port());
    }

    /** Stops accepting, lets running requests end (up to 5 s), and stops. */
    @Override
    public void close() {
        http.stop(0);
        SlotPool p = pool;
        if (p != null) {
            try {
                p.awaitIdle(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            p.slots().forEach(s -> s.session.close());
        }
        requests.shutdownNow();
        timer.shutdownNow();
    }

    private void handle(HttpExchange http) {
        Exchange ex = new Exchange(http, options.maxBodyBytes());
        String path = http.getRequestURI().getPath();
        String endpoint = knownEndpoint(path);
        try {
            route(ex, path, http.getRequestMethod());
        } catch (ApiError e) {
            respondError(ex, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            respondError(ex, new ApiError(503, "unavailable_error", null, "the server is shutting down"));
        } catch (IOException e) {
            // the client went away; nothing to answer
        } catch (RuntimeException e) {
            respondError(ex, new ApiError(500, "server_error", null, "internal error: " + e));
        } finally {
            metrics.request(endpoint, ex.status() == 0 ? 499 : ex.status());
            ex.close();
        }
    }

    private static void respondError(Exchange ex, ApiError e) {
        if (ex.started()) {
            return; // a stream already began: the connection simply ends
        }
        try {
            ex.sendError(e);
        } catch (IOException ignored) {
            // the client went away
        }
    }

    private static String knownEndpoint(String path) {
        return switch (path) {
            case "/v1/chat/completions",
                    "/v1/completions",
                    "/v1/models",
                    "/health",
                    "/v1/health",
                    "/tokenize",
                    "/detokenize",
                    "/metrics" -> path;
            default -> "other";
        };
    }

    private void route(Exchange ex, String path, String method) throws IOException, InterruptedException {
        if (knownEndpoint(path).equals("other")) {
            throw new ApiError(
                    404,
                    "not_found_error",
                    null,
                    "no endpoint " + path + " (see GET /v1/models, POST"
                            + " /v1/chat/completions, /v1/completions, /tokenize, /detokenize, GET /health, /metrics)");
        }
        boolean post = path.startsWith("/v1/c") || path.equals("/tokenize") || path.equals("/detokenize");
        String expected = post ? "POST" : "GET";
        if (!method.equals(expected)) {
            throw new ApiError(405, "invalid_request_error", null, path + " takes " + expected + ", not " + method);
        }
        if (!OPEN_PATHS.contains(path)) {
            authorize(ex.http());
        }
        if (path.equals("/metrics")) {
            ex.sendText(200, "text/plain; version=0.0.4; charset=utf-8", metrics.render(engine != null, pool));
            return;
        }
        if (engine == null) {
            throw new ApiError(503, "unavailable_error", null, "loading model");
        }
        switch (path) {
            case "/health", "/v1/health" ->
                ex.sendJson(200, Exchange.JSON.createObjectNode().put("status", "ok"));
            case "/v1/models" -> ex.sendJson(200, models());
            case "/v1/chat/completions" -> generation.handle(ex, true);
            case "/v1/completions" -> generation.handle(ex, false);
            case "/tokenize" -> ex.sendJson(200, tokenize(ex.jsonBody()));
            case "/detokenize" -> ex.sendJson(200, detokenize(ex.jsonBody()));
            default -> throw new IllegalStateException(path);
        }
    }

    private void authorize(HttpExchange http) {
        if (apiKey == null) {
            return;
        }
        String header = http.getRequestHeaders().getFirst("Authorization");
        byte[] given = header != null && header.startsWith("Bearer ")
                ? header.substring(7).strip().getBytes(StandardCharsets.UTF_8)
                : new byte[0];
        if (!MessageDigest.isEqual(given, apiKey)) { // constant time: the key is not guessed byte by byte
            throw new ApiError(
                    401, "authentication_error", null, "missing or wrong API key: send 'Authorization: Bearer KEY'");
        }
    }

    private ObjectNode models() {
        ObjectNode body = Exchange.JSON.createObjectNode().put("object", "list");
        ObjectNode m = body.putArray("data").addObject();
        m.put("id", modelName);
        m.put("object", "model");
        m.put("created", System.currentTimeMillis() / 1000);
        m.put("owned_by", "jacap");
        ObjectNode meta = m.putObject("meta");
        meta.put("n_ctx_train", engine.config().contextLength());
        meta.put("n_vocab", engine.tokenizer().vocabSize());
        meta.put("slots", options.parallel());
        meta.put("kv_policy", options.kvPolicy().name());
        return body;
    }

    private ObjectNode tokenize(JsonNode body) {
        if (body == null || !body.isObject() || !body.path("content").isTextual()) {
            throw ApiError.badField("content", "'content' must be a string");
        }
        boolean addSpecial = RequestFields.bool(body, "add_special", false);
        boolean parseSpecial = RequestFields.bool(body, "parse_special", true);
        boolean withPieces = RequestFields.bool(body, "with_pieces", false);
        Tokenizer tok = engine.tokenizer();
        int[] ids = tok.encode(body.get("content").asText(), addSpecial && tok.bosId() >= 0, parseSpecial);
        ObjectNode out = Exchange.JSON.createObjectNode();
        ArrayNode tokens = out.putArray("tokens");
        for (int id : ids) {
            if (withPieces) {
                tokens.addObject().put("id", id).put("piece", tok.piece(id));
            } else {
                tokens.add(id);
            }
        }
        return out;
    }

    private ObjectNode detokenize(JsonNode body) {
        JsonNode list = body == null ? null : body.get("tokens");
        if (list == null || !list.isArray()) {
            throw ApiError.badField("tokens", "'tokens' must be an array of token ids");
        }
        Tokenizer tok = engine.tokenizer();
        int[] ids = new int[list.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode v = list.get(i);
            if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 0 || v.asInt() >= tok.vocabSize()) {
                throw ApiError.badField(
                        "tokens", "'tokens[" + i + "]' is not a token id in [0, " + tok.vocabSize() + ")");
            }
            ids[i] = v.asInt();
        }
        return Exchange.JSON.createObjectNode().put("content", tok.decode(ids));
    }
}

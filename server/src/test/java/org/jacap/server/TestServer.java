package org.jacap.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jacap.engine.Engine;
import org.jacap.engine.EngineOptions;
import org.jacap.testing.Fixtures;

/** A server on a free loopback port over a fixture model, and a plain HTTP client for it. */
final class TestServer implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    final JacapServer server;
    final Engine engine;
    final URI base;
    final String apiKey;

    private TestServer(JacapServer server, Engine engine, String apiKey) {
        this.server = server;
        this.engine = engine;
        this.base = server.baseUri();
        this.apiKey = apiKey;
    }

    static Path stories() {
        return Fixtures.model("stories260K.gguf");
    }

    static Engine load(Path model) {
        try {
            return Engine.load(model, EngineOptions.defaults().withThreads(2));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A ready server over {@code engine} (which the caller closes). */
    static TestServer start(Engine engine, ServerOptions options) {
        try {
            JacapServer server = JacapServer.start(options.withPort(0));
            server.ready(engine, "stories260K");
            return new TestServer(server, engine, options.apiKey());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes a test class's shared server, then its engine; either is null when its set-up failed. */
    static void stop(TestServer server, Engine engine) {
        if (server != null) {
            server.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    record Reply(int status, JsonNode body, String text) {}

    Reply get(String path) {
        return send(request(path).GET().build());
    }

    Reply post(String path, Object body) {
        return post(path, body, apiKey);
    }

    Reply post(String path, Object body, String key) {
        try {
            String json = body instanceof String s ? s : JSON.writeValueAsString(body);
            HttpRequest.Builder b = request(path, key)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json));
            return send(b.build());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The data lines of a server-sent-event answer, in order ("[DONE]" included). */
    List<String> stream(String path, Object body) {
        try {
            HttpRequest req = request(path, apiKey)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                    .build();
            HttpResponse<InputStream> r = CLIENT.send(req, HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() != 200) {
                throw new AssertionError(
                        "status " + r.statusCode() + ": " + new String(r.body().readAllBytes()));
            }
            List<String> events = new ArrayList<>();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("data: ")) {
                        events.add(line.substring(6));
                    }
                }
            }
            return events;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    HttpRequest.Builder request(String path) {
        return request(path, apiKey);
    }

    HttpRequest.Builder request(String path, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(120));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return b;
    }

    static Reply send(HttpRequest req) {
        try {
            HttpResponse<String> r = CLIENT.send(req, HttpResponse.BodyHandlers.ofString());
            JsonNode body = null;
            String type = r.headers().firstValue("Content-Type").orElse("");
            if (type.startsWith("application/json")) {
                body = JSON.readTree(r.body());
            }
            return new Reply(r.statusCode(), body, r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** One value of the /metrics text, e.g. {@code jacap_kv_entries{slot="0"}}. */
    double metric(String line) {
        String text = get("/metrics").text();
        return text.lines()
                .filter(l -> l.startsWith(line + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(line.length() + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + line + " in\n" + text));
    }

    @Override
    public void close() {
        server.close();
    }
}

package org.jacap.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** One HTTP exchange: the body read within the size limit, JSON or event-stream answers. */
final class Exchange {
    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpExchange http;
    private final int maxBodyBytes;
    private OutputStream stream;
    private int status;

    Exchange(HttpExchange http, int maxBodyBytes) {
        this.http = http;
        this.maxBodyBytes = maxBodyBytes;
    }

    HttpExchange http() {
        return http;
    }

    int status() {
        return status;
    }

    boolean started() {
        return status != 0;
    }

    /** The body as JSON; 413 past the limit, 400 when it is not JSON. */
    JsonNode jsonBody() throws IOException {
        String length = http.getRequestHeaders().getFirst("Content-Length");
        if (length != null) {
            long n;
            try {
                n = Long.parseLong(length.strip());
            } catch (NumberFormatException e) {
                throw new ApiError(400, "invalid_request_error", null, "bad Content-Length header");
            }
            if (n > maxBodyBytes) {
                drain(n);
                throw tooLarge();
            }
        }
        byte[] body;
        try (InputStream in = http.getRequestBody()) {
            body = in.readNBytes(maxBodyBytes + 1);
        }
        if (body.length > maxBodyBytes) {
            throw tooLarge();
        }
        if (body.length == 0) {
            throw ApiError.badField(null, "the request body is empty: expected a JSON object");
        }
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            String first = e.getMessage() == null
                    ? ""
                    : e.getMessage().lines().findFirst().orElse("");
            throw ApiError.badField(null, "the request body is not valid JSON: " + first);
        }
    }

    /**
     * Reads and drops a refused body, up to a bound, before the 413 goes out: a connection closed
     * with unread bytes is reset, and the client then loses the answer it is owed.
     */
    private void drain(long declared) throws IOException {
        long left = Math.min(declared, 4L * maxBodyBytes);
        try (InputStream in = http.getRequestBody()) {
            byte[] sink = new byte[64 << 10];
            while (left > 0) {
                int got = in.read(sink, 0, (int) Math.min(sink.length, left));
                if (got < 0) {
                    break;
                }
                left -= got;
            }
        }
    }

    private ApiError tooLarge() {
        return new ApiError(
                413,
                "invalid_request_error",
                null,
                "the request body is larger than the limit of " + maxBodyBytes + " bytes");
    }

    void sendJson(int code, JsonNode body) throws IOException {
        send(code, "application/json", JSON.writeValueAsBytes(body));
    }

    void sendText(int code, String contentType, String text) throws IOException {
        send(code, contentType, text.getBytes(StandardCharsets.UTF_8));
    }

    void sendError(ApiError e) throws IOException {
        ObjectNode error = JSON.createObjectNode();
        error.put("message", e.getMessage());
        error.put("type", e.type());
        if (e.param() == null) {
            error.putNull("param");
        } else {
            error.put("param", e.param());
        }
        error.put("code", e.status());
        ObjectNode body = JSON.createObjectNode();
        body.set("error", error);
        sendJson(e.status(), body);
    }

    private void send(int code, String contentType, byte[] bytes) throws IOException {
        status = code;
        http.getResponseHeaders().set("Content-Type", contentType);
        http.sendResponseHeaders(code, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = http.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Starts a 200 server-sent-event stream. */
    void startEvents() throws IOException {
        status = 200;
        http.getResponseHeaders().set("Content-Type", "text/event-stream");
        http.getResponseHeaders().set("Cache-Control", "no-cache");
        http.sendResponseHeaders(200, 0);
        stream = http.getResponseBody();
    }

    /** One {@code data:} event, flushed; an IOException means the client went away. */
    void event(JsonNode data) throws IOException {
        eventText(JSON.writeValueAsString(data));
    }

    void eventText(String data) throws IOException {
        stream.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        stream.flush();
    }

    void close() {
        http.close();
    }
}

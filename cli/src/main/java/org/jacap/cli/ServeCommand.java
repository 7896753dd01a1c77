package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.jacap.JacapException;
import org.jacap.engine.Engine;
import org.jacap.engine.EvictionMode;
import org.jacap.server.JacapServer;
import org.jacap.server.ServerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code jacap serve}: the OpenAI-compatible HTTP server, until Ctrl-C. */
@Command(
        name = "serve",
        sortOptions = false,
        description = "Serve the model over an OpenAI-compatible HTTP API on loopback (Ctrl-C stops).")
final class ServeCommand extends HelpedCommand {

    @Mixin
    ModelOptions modelOptions;

    @Option(
            names = "--host",
            paramLabel = "ADDR",
            description = "Loopback address to bind (default: ${DEFAULT-VALUE}).")
    String host = ServerOptions.DEFAULT_HOST;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            description = "TCP port; 0 = any free one (default: ${DEFAULT-VALUE}).")
    int port = ServerOptions.DEFAULT_PORT;

    @Option(
            names = {"-np", "--parallel"},
            paramLabel = "N",
            description = "Conversations generated at once, each in its own KV cache slot (default: ${DEFAULT-VALUE}).")
    int parallel = 1;

    @Option(
            names = "--queue",
            paramLabel = "N",
            description = "Requests that may wait for a slot; more get 429 (default: ${DEFAULT-VALUE}).")
    int queue = 64;

    @Mixin
    KvOptions kv;

    @Option(
            names = "--api-key",
            paramLabel = "KEY",
            description = "Require 'Authorization: Bearer KEY' (all but /health).")
    String apiKey;

    @Option(
            names = "--max-tokens",
            paramLabel = "N",
            description = "The most tokens a request may generate, and the default (default: ${DEFAULT-VALUE}).")
    int maxTokens = 4096;

    @Option(
            names = "--max-body",
            paramLabel = "BYTES",
            description = "Largest request body; larger ones get 413 (default: ${DEFAULT-VALUE}).")
    int maxBody = 8 << 20;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            description = "Longest a request may wait and generate (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds = 600;

    @Override
    public Integer call() throws IOException, InterruptedException {
        modelOptions.validate(spec);
        EvictionMode kvPolicy = kv.eviction(spec);
        SamplingOptions.check(spec, timeoutSeconds >= 1, "--timeout must be >= 1 second (got " + timeoutSeconds + ")");
        ServerOptions options;
        try {
            options = new ServerOptions(
                    host,
                    port,
                    parallel,
                    queue,
                    modelOptions.contextLength,
                    kvPolicy,
                    apiKey,
                    maxBody,
                    maxTokens,
                    Duration.ofSeconds(timeoutSeconds));
        } catch (JacapException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        JacapServer server = JacapServer.start(options);
        err.println("jacap: listening on " + server.baseUri() + " (GET /health is 503 until the model is loaded)");
        err.flush();
        Engine engine;
        try {
            engine = modelOptions.load(spec);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        String name = modelOptions.model.getFileName().toString().replaceFirst("(?i)\\.gguf$", "");
        server.ready(engine, name);
        err.println("jacap: serving " + name + " with " + parallel + " slot" + (parallel == 1 ? "" : "s") + ", KV "
                + kvPolicy.name() + (apiKey != null ? ", API key required" : "") + "; Ctrl-C stops");
        err.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            engine.close();
            stopped.countDown();
        }));
        stopped.await();
        return 0;
    }
}

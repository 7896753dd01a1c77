package org.jacap.examples;

import java.io.IOException;
import java.nio.file.Path;
import org.jacap.engine.Engine;
import org.jacap.engine.EngineOptions;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.Session;
import org.jacap.engine.SessionOptions;
import org.jacap.engine.TokenListener;
import org.jacap.sampling.SamplerConfig;

/** The embedding example of docs/library.md: load a model, chat two turns, print the figures. */
public final class Embed {
    private Embed() {}

    public static void main(String[] args) throws IOException {
        Path model = Path.of(args.length > 0 ? args[0] : "model.gguf");
        EngineOptions engineOptions = EngineOptions.defaults()
                .withThreads(2)
                .withProgress((done, total, tensor) -> {}); // bytes of weights read, for a progress bar
        try (Engine engine = Engine.load(model, engineOptions);
                Session chat = engine.newSession(SessionOptions.defaults().withSystemPrompt("You are terse."))) {
            GenerationOptions opts = GenerationOptions.defaults()
                    .withMaxTokens(48)
                    .withSampler(SamplerConfig.defaults().withTemperature(0.7f).withSeed(42));
            GenerationResult r = chat.chat("Name three moons of Jupiter.", opts, (id, text) -> {
                System.out.print(text); // whole UTF-8 characters, never part of a stop string
                return true; // false stops (so does a CancellationToken or an interrupt)
            });
            System.out.printf(
                    "%n[%d tokens, %.1f tokens/s, %s]%n",
                    r.generatedTokens(), r.timings().evalTokensPerSecond(), r.finishReason());
            chat.chat("Which is largest?", opts, TokenListener.text(System.out::print)); // reuses the KV cache
            System.out.printf(
                    "%nKV cache: %d bytes in use%n", chat.kvCacheStats().bytesInUse());
        }
    }
}

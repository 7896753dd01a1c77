package org.jacap.engine;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.model.ModelConfig;
import org.jacap.tokenizer.ChatTemplate;
import org.jacap.tokenizer.Tokenizer;

/**
 * A loaded model ready to generate: the entry point for applications.
 *
 * <pre>{@code
 * try (Engine engine = Engine.load(Path.of("model.gguf"), EngineOptions.defaults());
 *      Session session = engine.newSession()) {
 *     session.generate("Once upon a time", GenerationOptions.defaults(), (id, text) -> {
 *         System.out.print(text);
 *         return true;
 *     });
 * }
 * }</pre>
 *
 * <p>Any number of {@link Session}s may share one engine, from any threads; their forward passes
 * take turns on the model. Closing the engine releases the file mapping and the threads; its
 * sessions cannot generate afterwards.
 */
public final class Engine implements AutoCloseable {
    private final Path path;
    private final Model model;
    private final Tokenizer tokenizer;
    private final EngineOptions options;
    private ChatTemplate chatTemplate; // read on first use: raw generation must not depend on it

    private Engine(Path path, Model model, Tokenizer tokenizer, EngineOptions options) {
        this.path = path;
        this.model = model;
        this.tokenizer = tokenizer;
        this.options = options;
    }

    /**
     * Maps the GGUF file, binds its weights and reads its tokenizer.
     *
     * @throws java.nio.file.NoSuchFileException when the file does not exist
     * @throws org.jacap.gguf.GgufFormatException when it is not a valid GGUF file
     * @throws org.jacap.JacapException when the model cannot run (unknown architecture, missing tensor …)
     *     or the JVM was started without {@code --add-modules jdk.incubator.vector}
     */
    public static Engine load(Path path, EngineOptions options) throws IOException {
        Objects.requireNonNull(options, "options");
        VectorApiCheck.require();
        LoadListener listener = options.progress();
        Model model = Model.load(
                path, new LoadOptions(options.threads(), options.precision().kernel(), listener::onProgress));
        try {
            return new Engine(path, model, Tokenizer.fromMetadata(model.metadata()), options);
        } catch (RuntimeException e) {
            model.close();
            throw e;
        }
    }

    /** A new conversation with the model's own context length. */
    public Session newSession() {
        return newSession(SessionOptions.defaults());
    }

    public Session newSession(SessionOptions sessionOptions) {
        return new Session(this, sessionOptions);
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    public ModelConfig config() {
        return model.config();
    }

    /** The chat template from the file's metadata (or the fallback its warning describes). */
    public synchronized ChatTemplate chatTemplate() {
        if (chatTemplate == null) {
            chatTemplate = ChatTemplate.fromMetadata(model.metadata(), tokenizer);
        }
        return chatTemplate;
    }

    public Path path() {
        return path;
    }

    public EngineOptions options() {
        return options;
    }

    Model model() {
        return model;
    }

    @Override
    public void close() {
        model.close();
    }
}

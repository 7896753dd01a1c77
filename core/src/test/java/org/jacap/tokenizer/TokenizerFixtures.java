package org.jacap.tokenizer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jacap.gguf.GgufFile;

/** Loads the fixtures' tokenizers ({@link org.jacap.testing.Fixtures#vocab}, {@link org.jacap.testing.Fixtures#model}), once each. */
final class TokenizerFixtures {
    private static final Map<Path, Tokenizer> LOADED = new ConcurrentHashMap<>();

    private TokenizerFixtures() {}

    static Tokenizer load(Path gguf) {
        return LOADED.computeIfAbsent(gguf, p -> {
            try (GgufFile file = GgufFile.open(p)) {
                return Tokenizer.fromMetadata(file.metadata());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}

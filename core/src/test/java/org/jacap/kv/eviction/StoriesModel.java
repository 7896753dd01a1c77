package org.jacap.kv.eviction;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.Precision;
import org.jacap.testing.Fixtures;
import org.jacap.tokenizer.Tokenizer;

/** Loads fixture models for the engine-level eviction tests; skips when the fixtures are absent. */
final class StoriesModel {
    static final String STORIES = "stories260K.gguf";
    static final String GEMMA3 = "gemma3-F16.gguf";

    private StoriesModel() {}

    static Model load(String name) {
        try {
            return Model.load(Fixtures.anyModel(name), new LoadOptions(1, Precision.F32, null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Tokenizer tokenizer(Model model) {
        return Tokenizer.fromMetadata(model.metadata());
    }

    static int argmax(float[] logits) {
        int best = 0;
        for (int i = 1; i < logits.length; i++) {
            if (logits[i] > logits[best]) {
                best = i;
            }
        }
        return best;
    }

    /** Greedy generation through a schedule: the prompt (compressed at its end), then n tokens. */
    static int[] greedy(EvictionSchedule schedule, int[] prompt, int n) {
        float[] logits = schedule.prompt(prompt, 0, prompt.length);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = argmax(logits);
            if (i + 1 < n) {
                logits = schedule.decode(out[i]);
            }
        }
        return out;
    }
}

package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jacap.kv.ForwardObserver;
import org.jacap.kv.KvCacheTypes;
import org.jacap.simd.HalfOnlineAttention;
import org.jacap.simd.Precision;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decoding over an F16 cache reads it a tile at a time ({@link HalfCacheAttention}); an observer that
 * wants the attention probabilities takes the path that turns the whole cache into floats per layer
 * and attends one query head at a time. Both compute llama.cpp's flash-attention arithmetic, so
 * every logit has the same bits, at any thread count (the tiles and the head split vary with it),
 * through gemma3's sliding window (32) and its global layer, and for a short prompt chunk (under 64
 * queries, which takes the same path).
 */
class HalfCacheAttentionTest {

    private static final ForwardObserver WANTS_ATTENTION = new ForwardObserver() {
        @Override
        public boolean wantsAttention() {
            return true;
        }
    };

    @ParameterizedTest
    @ValueSource(strings = {"gemma3-Q8_0.gguf", "llama-Q4_0.gguf", "qwen2-Q8_0.gguf"})
    void tiledDecodingGivesTheBitsOfWholeCacheAttention(String name) throws IOException {
        assertSameBitsBothPathsAnyThreads(name, HalfCacheAttentionTest::decode);
    }

    /**
     * Past {@link HalfOnlineAttention#CHUNK_ROWS} rows a head's chunks go to different items and are
     * folded after the threads: the same bits as the whole-cache path's {@code attend}, which folds
     * the same chunks, at 1, 2 and 3 threads (a 10-token chunk across the boundary, then decoding).
     */
    @ParameterizedTest
    @ValueSource(strings = {"gemma3-Q8_0.gguf", "llama-Q4_0.gguf"})
    void chunksOfALongContextFoldToTheSameBitsAtAnyThreadCount(String name) throws IOException {
        assertSameBitsBothPathsAnyThreads(
                name, (m, observer) -> decodeDeep(m, observer, HalfOnlineAttention.CHUNK_ROWS - 4));
    }

    /** The logits of a run of {@code model} with or without an observer that wants the attention. */
    private interface Run {
        List<float[]> logits(Model model, ForwardObserver observer);
    }

    /** At 1, 2 and 3 threads, the tiled path and the whole-cache path give the same logits, and every thread count the 1-thread bits. */
    private static void assertSameBitsBothPathsAnyThreads(String name, Run run) throws IOException {
        Path file = Fixtures.oracleModel(name);
        List<float[]> reference = null;
        for (int threads : new int[] {1, 2, 3}) {
            try (Model m = Model.load(file, new LoadOptions(threads, Precision.NATIVE, null))) {
                List<float[]> tiled = run.logits(m, null);
                List<float[]> whole = run.logits(m, WANTS_ATTENTION);
                for (int i = 0; i < tiled.size(); i++) {
                    assertThat(tiled.get(i))
                            .as("%s, %d threads, step %d", name, threads, i)
                            .isEqualTo(whole.get(i));
                }
                if (reference == null) {
                    reference = tiled;
                } else {
                    for (int i = 0; i < tiled.size(); i++) {
                        assertThat(tiled.get(i))
                                .as("%s, %d threads against 1, step %d", name, threads, i)
                                .isEqualTo(reference.get(i));
                    }
                }
            }
        }
    }

    /** The logits of a {@code prefix}-token prompt, a 10-token chunk after it and 8 decoded tokens. */
    private static List<float[]> decodeDeep(Model m, ForwardObserver observer, int prefix) {
        int vocab = m.config().vocabSize();
        InferenceState st = m.newState(prefix + 32, KvCacheTypes.DEFAULT);
        int[] ids = new int[prefix + 18];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (int) ((i * 2654435761L + 7) % vocab);
        }
        m.forward(st, ids, 0, prefix, false); // a batch of 64 or more: llama.cpp's F32 tiles, no observer needed
        st.setObserver(observer);
        List<float[]> logits = new ArrayList<>();
        logits.add(m.forward(st, ids, prefix, 10, false));
        for (int i = prefix + 10; i < ids.length; i++) {
            logits.add(m.forward(st, ids, i, 1, false));
        }
        return logits;
    }

    /** The logits of a 40-token prompt (chunks of 30 and 10: the second under 64) and 40 decoded tokens. */
    private static List<float[]> decode(Model m, ForwardObserver observer) {
        int vocab = m.config().vocabSize();
        InferenceState st = m.newState(128, KvCacheTypes.DEFAULT); // f16 keys and values
        st.setObserver(observer);
        List<float[]> logits = new ArrayList<>();
        int[] ids = new int[80];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (int) ((i * 2654435761L + 7) % vocab);
        }
        logits.add(m.forward(st, ids, 0, 30, false));
        logits.add(m.forward(st, ids, 30, 10, false));
        for (int i = 40; i < ids.length; i++) {
            logits.add(m.forward(st, ids, i, 1, false));
        }
        return logits;
    }
}

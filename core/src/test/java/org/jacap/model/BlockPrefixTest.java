package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.jacap.kv.KvCache;
import org.jacap.simd.Precision;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A shared prefix finished on a state is the plain forward pass on it, to the bit: Gemma 3's
 * fixture (window 32) with its global layers compressed differently in each copy.
 */
class BlockPrefixTest {
    private static final int[] PROMPT = ChunkingTest.PROMPT;
    private static final int CONTEXT = 40;
    private static final int CHUNK = 10;
    private static Model model;

    @BeforeAll
    static void load() throws IOException {
        model = Model.load(Fixtures.anyModel("gemma3-Q8_0.gguf"), new LoadOptions(2, Precision.NATIVE, null));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    private static InferenceState prefilled() {
        InferenceState st = model.newState(CONTEXT + CHUNK + 1);
        model.forward(st, PROMPT, 0, CONTEXT, false);
        return st;
    }

    /** Keeps every other entry of each global layer: what a policy's compression might leave. */
    private static InferenceState compressedCopy(InferenceState st, int stride) {
        InferenceState c = st.copy();
        KvCache cache = c.kvCache();
        for (int l = 0; l < cache.layers(); l++) {
            if (cache.isWindowed(l)) {
                continue;
            }
            for (int g = 0; g < cache.kvHeads(); g++) {
                int len = cache.length(l, g);
                cache.retain(
                        l,
                        g,
                        IntStream.range(0, len)
                                .filter(i -> i % stride == 0 || i == len - 1)
                                .toArray());
            }
        }
        return c;
    }

    private static void assertSameCache(KvCache a, KvCache b) {
        for (int l = 0; l < a.layers(); l++) {
            for (int g = 0; g < a.kvHeads(); g++) {
                int len = a.length(l, g);
                assertThat(b.length(l, g)).as("layer %d head %d", l, g).isEqualTo(len);
                assertThat(Arrays.copyOf(b.positions(l, g), len)).isEqualTo(Arrays.copyOf(a.positions(l, g), len));
                assertThat(Arrays.copyOf(b.keys(l, g), len * a.keyDim()))
                        .isEqualTo(Arrays.copyOf(a.keys(l, g), len * a.keyDim()));
                assertThat(Arrays.copyOf(b.values(l, g), len * a.valueDim()))
                        .isEqualTo(Arrays.copyOf(a.values(l, g), len * a.valueDim()));
            }
        }
    }

    @Test
    void finishingThePrefixIsTheForwardPassOnEveryCompressedCopy() {
        InferenceState base = prefilled();
        int shared = base.kvCache().leadingWindowedLayers();
        assertThat(shared).isBetween(1, model.config().blockCount() - 1);
        int lengthBefore = base.kvCache().length(0, 0);
        BlockPrefix prefix = model.forwardPrefix(base, PROMPT, CONTEXT, CHUNK, shared);
        assertThat(base.position()).isEqualTo(CONTEXT); // the source state is not changed
        assertThat(base.kvCache().length(0, 0)).isEqualTo(lengthBefore);
        assertThat(prefix.layers()).isEqualTo(shared);
        assertThat(prefix.length()).isEqualTo(CHUNK);
        for (int stride : new int[] {1, 2, 3}) {
            InferenceState plain = compressedCopy(base, stride);
            InferenceState shortcut = compressedCopy(base, stride);
            float[] expected = model.forward(plain, PROMPT, CONTEXT, CHUNK, true);
            float[] actual = model.forwardFrom(shortcut, prefix, 0);
            assertThat(actual).as("stride %d", stride).containsExactly(expected);
            assertThat(shortcut.position()).isEqualTo(plain.position());
            assertSameCache(plain.kvCache(), shortcut.kvCache());
            // the states go on as any other: one more token gives the same logits
            assertThat(model.forward(shortcut, PROMPT, CONTEXT + CHUNK - 1, 1, false))
                    .containsExactly(model.forward(plain, PROMPT, CONTEXT + CHUNK - 1, 1, false));
        }
        // the last logits only, and a prefix of no blocks (the whole pass from the embeddings)
        assertThat(model.forwardFrom(base.copy(), prefix, CHUNK - 1))
                .containsExactly(model.forward(base.copy(), PROMPT, CONTEXT, CHUNK, false));
        assertThat(model.forwardFrom(base.copy(), prefix, 3))
                .containsExactly(model.forwardRows(base.copy(), PROMPT, CONTEXT, CHUNK, 3));
        BlockPrefix none = model.forwardPrefix(base, PROMPT, CONTEXT, CHUNK, 0);
        assertThat(model.forwardFrom(compressedCopy(base, 2), none, 0))
                .containsExactly(model.forward(compressedCopy(base, 2), PROMPT, CONTEXT, CHUNK, true));
    }

    @Test
    void aPrefixOnlyFitsTheStateItWasMadeFor() {
        InferenceState base = prefilled();
        int shared = base.kvCache().leadingWindowedLayers();
        BlockPrefix prefix = model.forwardPrefix(base, PROMPT, CONTEXT, CHUNK, shared);
        InferenceState later = base.copy();
        model.forward(later, PROMPT, CONTEXT, 1, false);
        assertThatThrownBy(() -> model.forwardFrom(later, prefix, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the prefix starts at position 40, the state is at 41");
        // a copy whose shared blocks were compressed is not what the prefix ran on
        InferenceState changed = base.copy();
        KvCache cache = changed.kvCache();
        cache.retain(0, 0, IntStream.range(1, cache.length(0, 0)).toArray());
        assertThatThrownBy(() -> model.forwardFrom(changed, prefix, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("block 0, KV head 0 holds ");
        InferenceState observed = base.copy();
        observed.setObserver(new org.jacap.kv.ForwardObserver() {});
        assertThatThrownBy(() -> model.forwardFrom(observed, prefix, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without an observer");
        assertThatThrownBy(() -> model.forwardPrefix(
                        base, PROMPT, CONTEXT, CHUNK, model.config().blockCount() + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blocks; the model has");
        InferenceState roomy = model.newState(model.maxChunk() + 2);
        int[] many = new int[model.maxChunk() + 1];
        assertThatThrownBy(() -> model.forwardPrefix(roomy, many, 0, many.length, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one chunk of at most " + model.maxChunk());
    }
}

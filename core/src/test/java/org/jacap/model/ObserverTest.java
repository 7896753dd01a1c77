package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jacap.kv.ForwardObserver;
import org.jacap.simd.Precision;
import org.jacap.simd.Rope;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** The forward pass reports queries and attention weights as ForwardObserver promises. */
class ObserverTest {

    record Query(int layer, int position, float[] pre, float[] post) {}

    record Probs(int layer, int head, int position, float[] p) {}

    static final class Recorder implements ForwardObserver {
        final int qDim;
        final boolean attention;
        final List<Query> queries = new ArrayList<>();
        final List<Probs> probs = new ArrayList<>();
        final List<int[]> layerEnds = new ArrayList<>();

        Recorder(int qDim, boolean attention) {
            this.qDim = qDim;
            this.attention = attention;
        }

        @Override
        public void onQuery(int layer, int position, float[] qPre, int preOff, float[] qPost, int postOff) {
            queries.add(new Query(
                    layer,
                    position,
                    Arrays.copyOfRange(qPre, preOff, preOff + qDim),
                    Arrays.copyOfRange(qPost, postOff, postOff + qDim)));
        }

        @Override
        public boolean wantsAttention() {
            return attention;
        }

        @Override
        public void onAttention(int layer, int queryHead, int position, float[] p, int off, int len) {
            probs.add(new Probs(layer, queryHead, position, Arrays.copyOfRange(p, off, off + len)));
        }

        @Override
        public void onLayerEnd(int layer, int firstPosition, int tokens) {
            layerEnds.add(new int[] {layer, firstPosition, tokens});
        }
    }

    @Test
    void gemma3QueriesAndSlidingWindowAttention() throws IOException {
        try (Model m = Model.load(Fixtures.anyModel("gemma3-Q8_0.gguf"), new LoadOptions(1, Precision.F32, null))) {
            ModelConfig c = m.config();
            int n = ChunkingTest.PROMPT.length;
            InferenceState plain = m.newState(64);
            float[] expected = m.forward(plain, ChunkingTest.PROMPT, 0, n - 1, false);

            InferenceState st = m.newState(64);
            Recorder rec = new Recorder(c.layer(0).queryDim(), true);
            st.setObserver(rec);
            float[] observed = m.forward(st, ChunkingTest.PROMPT, 0, n - 1, false);
            assertThat(ChunkingTest.maxAbsDiff(observed, expected)).isLessThan(1e-4);
            m.forward(st, ChunkingTest.PROMPT, n - 1, 1, false); // a decode step

            assertThat(rec.queries).hasSize(c.blockCount() * n);
            for (Query q : rec.queries) {
                LayerConfig l = c.layer(q.layer());
                Rope rope = new Rope(
                        l.keyLength(), l.ropeDimension(), l.ropeBase(), l.ropeFreqScale(), null, l.ropeLayout());
                float[] rotated = q.pre().clone();
                rope.apply(rotated, 0, l.headCount(), q.position());
                for (int i = 0; i < rotated.length; i++) {
                    assertThat(q.post()[i]).isCloseTo(rotated[i], within(1e-4f + 1e-5f * Math.abs(rotated[i])));
                }
            }
            assertThat(rec.layerEnds).hasSize(2 * c.blockCount());
            assertThat(rec.layerEnds.get(rec.layerEnds.size() - 1)).containsExactly(c.blockCount() - 1, n - 1, 1);

            assertThat(rec.probs).hasSize(c.blockCount() * c.headCount() * n);
            for (Probs p : rec.probs) {
                LayerConfig l = c.layer(p.layer());
                // the decode step's chunk starts at n - 1: the local layer dropped what its window lost
                int first = l.isSliding() && p.position() == n - 1 ? n - 1 - l.slidingWindow() + 1 : 0;
                // every row up to its own, ascending positions
                assertThat(p.p()).hasSize(p.position() + 1 - first);
                double sum = 0;
                for (int j = 0; j < p.p().length; j++) {
                    sum += p.p()[j];
                    boolean visible = !l.isSliding() || p.position() - (first + j) < l.slidingWindow();
                    if (!visible) {
                        assertThat(p.p()[j])
                                .as("layer %d pos %d row %d outside the window", p.layer(), p.position(), j)
                                .isZero();
                    }
                }
                assertThat(sum).isCloseTo(1.0, within(1e-5));
            }
            // the local block really limits the window: position 49 sees no weight before position 18
            assertThat(c.layer(0).slidingWindow()).isEqualTo(32);
        }
    }

    @Test
    void queriesWithoutAttentionKeepTheParallelPath() throws IOException {
        try (Model m = Model.load(Fixtures.anyModel("qwen2-F16.gguf"), new LoadOptions(1, Precision.F32, null))) {
            InferenceState st = m.newState(32);
            Recorder rec = new Recorder(m.config().layer(0).queryDim(), false);
            st.setObserver(rec);
            float[] a = m.forward(st, ChunkingTest.PROMPT, 0, 10, false);
            float[] b = m.forward(m.newState(32), ChunkingTest.PROMPT, 0, 10, false);
            assertThat(a).containsExactly(b);
            assertThat(rec.probs).isEmpty();
            assertThat(rec.queries).hasSize(m.config().blockCount() * 10);
            // Qwen2 adds the q bias before RoPE: at position 0 the rotation is the identity.
            Query first = rec.queries.get(0);
            assertThat(first.position()).isZero();
            assertThat(first.post()).containsExactly(first.pre());
        }
    }
}

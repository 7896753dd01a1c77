package org.jacap.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.jacap.model.InferenceState;
import org.jacap.model.LayerConfig;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.Precision;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** The real Gemma 3 270M (15 of 18 layers with a 512 window): what its cache holds and weighs. */
class GemmaWindowCacheTest {

    @Test
    void windowLayersHoldTheirWindowAndTheBytesFollow() throws Exception {
        Path file = Fixtures.realModel("gemma-3-270m-q4_k_m.gguf");
        try (Model m = Model.load(file, new LoadOptions(2, Precision.NATIVE, null))) {
            int windowed = 0;
            for (LayerConfig l : m.config().layers()) {
                if (l.isSliding()) {
                    windowed++;
                    assertThat(l.slidingWindow()).isEqualTo(512);
                }
            }
            assertThat(windowed).isEqualTo(15);
            int[] prompt = new int[520]; // two chunks: 512, then 8 that push position 0 out of the window
            prompt[0] = m.tokenizer().bosId();
            for (int i = 1; i < prompt.length; i++) {
                prompt[i] = 1000 + (i * 7919) % 20000;
            }
            InferenceState st = m.newState(4096, KvCacheTypes.DEFAULT);
            m.forward(st, prompt, 0, prompt.length, false);
            KvCache c = st.kvCache();
            for (int l = 0; l < c.layers(); l++) {
                int expected = c.isWindowed(l) ? 519 : 520;
                assertThat(c.length(l, 0)).as("layer %d", l).isEqualTo(expected);
                assertThat(c.position(l, 0, 0)).isEqualTo(520 - expected);
            }
            long row = 2L * c.keyDim() + 2L * c.valueDim() + 4; // f16 key and value, int position
            assertThat(c.bytesInUse()).isEqualTo((3L * 520 + 15L * 519) * c.kvHeads() * row);
            int[] next = {prompt[5]};
            for (int i = 0; i < 3; i++) {
                m.forward(st, next, 0, 1, false);
            }
            for (int l = 0; l < c.layers(); l++) {
                assertThat(c.length(l, 0)).isEqualTo(c.isWindowed(l) ? 512 : 523);
            }
            assertThat(c.maxLength()).isEqualTo(523);
        }
    }
}

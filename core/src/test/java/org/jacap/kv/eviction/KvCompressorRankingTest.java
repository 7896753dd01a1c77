package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.jacap.JacapException;
import org.jacap.kv.KvCache;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Scoring once and cutting the ranking at each budget keeps exactly what one compress() per budget keeps. */
class KvCompressorRankingTest {
    @AutoClose
    private static Model model;

    @BeforeAll
    static void load() {
        model = StoriesModel.load(StoriesModel.STORIES);
    }

    @ParameterizedTest
    @ValueSource(strings = {"snapkv", "tova", "h2o", "capkv", "jacap", "jacap-paper", "expected", "knorm"})
    void rankThenRetainEqualsCompressAtEveryRatio(String scorer) {
        EvictionPolicy policy = EvictionPolicies.policy(scorer, "uniform");
        int[] prompt = StoriesModel.tokenizer(model)
                .encode(
                        "Once upon a time, there was a little girl named Lily. She loved to play outside in the park with her friends and her dog.",
                        true,
                        false);
        InferenceState base = model.newState(prompt.length + 8);
        EvictionObserver observer = KvCompressor.observe(model, base, policy.statistics());
        model.forward(base, prompt, 0, prompt.length, false);
        base.setObserver(null);

        InferenceState prepared = base.copy();
        KvCompressor compressor = KvCompressor.forModel(model, policy);
        KvCompressor.Ranking ranking = compressor.rank(prepared.kvCache(), observer.copy(), prepared.position());
        for (double r : new double[] {0.25, 0.5, 0.75, 0.9}) {
            InferenceState expected = base.copy();
            KvCompressor.compress(model, expected, observer.copy(), policy, Budget.ratio(r));
            InferenceState actual = prepared.copy();
            compressor.retain(actual.kvCache(), ranking, Budget.ratio(r));
            sameEntries(actual.kvCache(), expected.kvCache());
        }
        InferenceState longer = base.copy();
        model.forward(longer, new int[] {5}, 0, 1, false);
        assertThatThrownBy(() -> compressor.retain(longer.kvCache(), ranking, Budget.ratio(0.5)))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("the ranking scored");
    }

    private static void sameEntries(KvCache a, KvCache b) {
        for (int l = 0; l < a.layers(); l++) {
            for (int g = 0; g < a.kvHeads(); g++) {
                int n = b.length(l, g);
                assertThat(a.length(l, g)).isEqualTo(n);
                assertThat(java.util.Arrays.copyOf(a.positions(l, g), n))
                        .isEqualTo(java.util.Arrays.copyOf(b.positions(l, g), n));
            }
        }
    }
}

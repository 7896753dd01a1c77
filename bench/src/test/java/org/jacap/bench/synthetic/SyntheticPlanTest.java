package org.jacap.bench.synthetic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufValue;
import org.junit.jupiter.api.Test;

class SyntheticPlanTest {

    @Test
    void splitMix64MatchesTheReferenceSequence() {
        SplitMix64 r = new SplitMix64(0);
        assertThat(r.nextLong()).isEqualTo(0xE220A8397B1DCDAFL);
        assertThat(r.nextLong()).isEqualTo(0x6E789E6AA1B965F4L);
    }

    @Test
    void gaussianApproximationHasUnitMomentsAndIsBounded() {
        SplitMix64 r = new SplitMix64(SplitMix64.seed(1, 2, 3));
        int n = 200_000;
        double sum = 0;
        double sq = 0;
        double max = 0;
        for (int i = 0; i < n; i++) {
            double g = r.nextGaussian();
            sum += g;
            sq += g * g;
            max = Math.max(max, Math.abs(g));
        }
        assertThat(sum / n).isCloseTo(0, within(0.01));
        assertThat(sq / n).isCloseTo(1, within(0.01));
        assertThat(max).isLessThanOrEqualTo(Math.sqrt(12) + 1e-6);
    }

    @Test
    void seedsDependOnEveryPart() {
        assertThat(SplitMix64.seed(1, 2)).isNotEqualTo(SplitMix64.seed(2, 1)).isNotEqualTo(SplitMix64.seed(1, 3));
    }

    @Test
    void vocabularyHasSpecialsBytesAndDistinctPieces() {
        SyntheticVocabulary v = SyntheticVocabulary.of(128256);
        assertThat(v.tokens()[0]).isEqualTo("<unk>");
        assertThat(v.tokens()[1]).isEqualTo("<s>");
        assertThat(v.tokens()[2]).isEqualTo("</s>");
        assertThat(v.tokens()[3]).isEqualTo("<0x00>");
        assertThat(v.tokens()[3 + 0x0A]).isEqualTo("<0x0A>");
        assertThat(v.tokens()[258]).isEqualTo("<0xFF>");
        assertThat(v.types()[258]).isEqualTo(SyntheticVocabulary.BYTE);
        assertThat(v.tokens()[259]).isEqualTo("\u2581");
        assertThat(v.tokens()[260]).isEqualTo("!");
        Set<String> distinct = new HashSet<>(java.util.Arrays.asList(v.tokens()));
        assertThat(distinct).hasSize(128256);
        assertThat(distinct).contains("\u2581a", "\u2581the", "the");
        assertThat(v.scores()[1000]).isGreaterThan(v.scores()[1001]);
    }

    @Test
    void tinyPlanHasLlamaTensorsWithTheRequestedTypes() {
        SyntheticPlan plan = SyntheticPlan.of(SyntheticShape.TINY, SyntheticType.Q4_0, 42);
        Map<String, TensorPlan> byName = plan.tensors().stream().collect(Collectors.toMap(TensorPlan::name, t -> t));
        assertThat(plan.fileName()).isEqualTo("synthetic-tiny-q4_0-42.gguf");
        assertThat(byName)
                .hasSize(1 + 4 * 9 + 1)
                .doesNotContainKey("output.weight")
                .doesNotContainKey("rope_freqs.weight");
        assertThat(byName.get("token_embd.weight").dims()).containsExactly(256, 4096);
        assertThat(byName.get("token_embd.weight").type()).isEqualTo(GgmlType.Q6_K);
        assertThat(byName.get("blk.3.attn_k.weight").dims()).containsExactly(256, 128);
        assertThat(byName.get("blk.3.ffn_down.weight").dims()).containsExactly(768, 256);
        assertThat(byName.get("blk.0.attn_q.weight").type()).isEqualTo(GgmlType.Q4_0);
        assertThat(byName.get("blk.0.attn_norm.weight").type()).isEqualTo(GgmlType.F32);
        assertThat(plan.metadata().get("llama.attention.head_count_kv"))
                .isEqualTo(new GgufValue.IntValue(org.jacap.gguf.GgufValueType.UINT32, 4));
        // 4096·256 embeddings + 4 × (2·256² + 2·256·128 + 3·256·768 + 2·256) + 256
        assertThat(plan.parameterCount())
                .isEqualTo(4096L * 256 + 4L * (2 * 65536 + 2 * 32768 + 3 * 196608 + 512) + 256);
    }

    @Test
    void oneBPlanMatchesLlama32OneB() {
        SyntheticPlan plan = SyntheticPlan.of(SyntheticShape.ONE_B, SyntheticType.Q4_0, 42);
        assertThat(plan.parameterCount()).isEqualTo(1_235_814_432L); // Llama-3.2-1B (1,235,814,400) + 32 RoPE factors
        // llama.cpp's Q4_0 file of Llama-3.2-1B: 727.75 MiB with a Q6_K tied embedding.
        assertThat(plan.tensorBytes() / 1048576.0).isCloseTo(727.75, within(0.5));
        TensorPlan rope = plan.tensors().get(1);
        assertThat(rope.name()).isEqualTo("rope_freqs.weight");
        float[] f = ((TensorPlan.Values) rope.fill()).values();
        assertThat(f).hasSize(32);
        assertThat(f[0]).isEqualTo(1f);
        assertThat(f[31]).isEqualTo(32f);
        assertThat(f[20]).isBetween(1f, 32f);
    }

    @Test
    void q4kIsQ4KMediumAndQ8KeepsQ8Embeddings() {
        SyntheticType t = SyntheticType.Q4_K;
        int[] raised = java.util.stream.IntStream.range(0, 16)
                .filter(l -> SyntheticType.useMoreBits(l, 16))
                .toArray();
        assertThat(raised).containsExactly(0, 1, 4, 7, 10, 13, 14, 15);
        assertThat(t.layerType("attn_v", 4, 16)).isEqualTo(GgmlType.Q6_K);
        assertThat(t.layerType("attn_v", 5, 16)).isEqualTo(GgmlType.Q4_K);
        assertThat(t.layerType("attn_q", 0, 16)).isEqualTo(GgmlType.Q4_K);
        assertThat(SyntheticType.Q8_0.outputType()).isEqualTo(GgmlType.Q8_0);
        assertThat(SyntheticType.F16.layerType("ffn_down", 0, 16)).isEqualTo(GgmlType.F16);
    }

    @Test
    void vocabularyLoadsAsASentencePieceTokenizerThatRoundTripsText() {
        SyntheticPlan plan = SyntheticPlan.of(SyntheticShape.TINY, SyntheticType.Q8_0, 1);
        org.jacap.tokenizer.Tokenizer tok =
                org.jacap.tokenizer.Tokenizer.fromMetadata(new org.jacap.gguf.GgufMetadata(plan.metadata()));
        assertThat(tok.vocabSize()).isEqualTo(4096);
        assertThat(tok.bosId()).isEqualTo(1);
        String text = "Once upon a time, Lily said: \"héllo 世界\"\n";
        int[] ids = tok.encode(text, true, false);
        assertThat(ids[0]).isEqualTo(1);
        assertThat(java.util.Arrays.stream(ids).allMatch(id -> id >= 0 && id < 4096))
                .isTrue();
        assertThat(tok.decode(java.util.Arrays.copyOfRange(ids, 1, ids.length))).isEqualTo(text);
        java.util.List<String> tokens =
                java.util.Arrays.asList(SyntheticVocabulary.of(4096).tokens());
        assertThat(tok.encode("ab", false, false)).containsExactly(tokens.indexOf("\u2581ab"));
    }

    @Test
    void namesParse() {
        assertThat(SyntheticShape.parse("1B")).isEqualTo(SyntheticShape.ONE_B);
        assertThat(SyntheticType.parse("Q4_K")).isEqualTo(SyntheticType.Q4_K);
        assertThatThrownBy(() -> SyntheticShape.parse("7b")).hasMessageContaining("tiny or 1b");
        assertThatThrownBy(() -> SyntheticType.parse("q5_k")).hasMessageContaining("q8_0, q4_0, q4_k or f16");
    }
}

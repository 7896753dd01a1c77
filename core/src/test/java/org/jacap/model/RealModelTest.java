package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.jacap.kv.KvCacheTypes;
import org.jacap.simd.Precision;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The two real models (Gemma 3 270M Q4_K_M, SmolLM2-135M Q4_1; fetched by {@code scripts/fetch-models}
 * into {@code -Djacap.models}) against llama.cpp's references in {@code realmodels/}: for every
 * completion and chat case (an F16 cache, as the references), teacher-forced on llama.cpp's greedy path, the log-probs of llama.cpp's
 * top-5 tokens at each of the 64 steps, and our own greedy ids up to the first step whose reference
 * margin is too small to call.
 */
class RealModelTest {
    /**
     * Largest |Δ log-prob| allowed for one of llama.cpp's top-5 tokens at one step. The conversion
     * rules match llama.cpp's (layer 0 agrees to 1e-6), but a last-bit difference upstream moves a
     * Q8 or F16 rounding, and those flips compound over 18-30 layers, so the worst single entry of
     * ~3,500 depends on the summation order and with it on the vector width. Measured (native
     * precision, 2 threads) with 256-bit vectors (an AVX2 Zen 3, and an AVX-512 Xeon under
     * {@code -XX:MaxVectorSize=32}, identical): worst 1.571 (SmolLM2) and 1.335 (Gemma); with
     * 512-bit vectors on the Xeon: 2.753 (SmolLM2: one entry above 1 nat, case 2 step 57, a token
     * llama.cpp puts at -5.31 beside a top-1 at -0.005) and 1.052 (Gemma). A wrong conversion rule
     * moves every step, which {@link #MEAN_LOGPROB_ERROR} and {@link #MAX_TAIL_FRACTION} catch.
     */
    static final double MAX_LOGPROB_ERROR = 3.0;
    /** |Δ log-prob| (nats) above which a top-5 entry counts towards {@link #MAX_TAIL_FRACTION}. */
    static final double TAIL_NATS = 1.0;
    /**
     * Fraction of the top-5 entries allowed above {@link #TAIL_NATS}. Measured: 5 of 3,520 on each model with
     * 256-bit vectors, 1 of 3,520 on each with 512-bit ones; the bound (8.8 of 3,520) sits half again
     * above the most measured. A wrong rule (≥ 2x the error, as before these fixes on the oracle
     * models) puts far more entries there.
     */
    static final double MAX_TAIL_FRACTION = 0.0025;
    /** Mean |Δ log-prob| over all steps and top-5 entries of one model's cases. */
    static final double MEAN_LOGPROB_ERROR = 0.15;
    /**
     * Greedy ids must agree while llama.cpp's top-1 leads its top-2 by more than this (nats). Was
     * 0.3 until 2026-12-05: at Gemma 3's case 6, step 1 (llama.cpp's margin 0.383) three summation
     * orders of the same Q4_K products, each row within a unit or two of the last place of the
     * others (the stored 512-bit kernel, its scalar twin, the 32-row repacked kernel), gave Jacap
     * margins of 0.12, 0.29 and −0.004: the Q8/F16 rounding flips described above move a margin by
     * about 0.3 nats there, so a margin below 0.5 is not one the order can be held to.
     */
    static final double MIN_MARGIN = 0.5;

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String[] MODELS = {"gemma-3-270m-q4_k_m", "SmolLM2-135M-Instruct.Q4_1"};

    /** A real model file from the cache, or the test is skipped with the reason. */
    static Path realModel(String stem) {
        return Fixtures.realModel(stem + ".gguf");
    }

    @TestFactory
    Stream<DynamicTest> everyReferenceCase() {
        return Stream.of(MODELS).map(m -> DynamicTest.dynamicTest(m, () -> checkModel(m)));
    }

    private static void checkModel(String stem) throws IOException {
        Path modelFile = realModel(stem);
        Path refFile = Fixtures.dir().resolve("realmodels/" + stem + ".llamacpp.json");
        assumeTrue(Files.isRegularFile(refFile), "no reference " + refFile);
        JsonNode ref = JSON.readTree(refFile.toFile());
        List<JsonNode> cases = new ArrayList<>();
        ref.get("completion").forEach(cases::add);
        ref.get("chat").forEach(cases::add);
        double sum = 0;
        double worst = 0;
        int n = 0;
        int tail = 0;
        int agreed = 0;
        StringBuilder report = new StringBuilder();
        try (Model model = Model.load(modelFile, new LoadOptions(2, Precision.NATIVE, null))) {
            int vocab = model.config().vocabSize();
            for (int c = 0; c < cases.size(); c++) {
                JsonNode k = cases.get(c);
                int[] prompt = OracleTest.ints(k.get("prompt_ids"));
                JsonNode steps = k.get("steps");
                // Teacher-forced log-probs.
                InferenceState st = model.newState(prompt.length + steps.size() + 1, KvCacheTypes.DEFAULT);
                float[] logits = model.forward(st, prompt, 0, prompt.length, false);
                double caseWorst = 0;
                for (int s = 0; s < steps.size(); s++) {
                    JsonNode step = steps.get(s);
                    double[] lp = logSoftmax(logits, vocab);
                    for (JsonNode top : step.get("top5")) {
                        double d = Math.abs(
                                lp[top.get("id").asInt()] - top.get("logprob").asDouble());
                        sum += d;
                        n++;
                        caseWorst = Math.max(caseWorst, d);
                        if (d > TAIL_NATS) {
                            tail++;
                        }
                    }
                    logits = model.forward(st, new int[] {step.get("id").asInt()}, 0, 1, false);
                }
                worst = Math.max(worst, caseWorst);
                // Free-running greedy ids, up to the first step llama.cpp itself barely decided.
                st = model.newState(prompt.length + steps.size() + 1, KvCacheTypes.DEFAULT);
                logits = model.forward(st, prompt, 0, prompt.length, false);
                int checked = 0;
                for (int s = 0; s < steps.size(); s++) {
                    JsonNode step = steps.get(s);
                    if (step.get("margin").asDouble() < MIN_MARGIN) {
                        break;
                    }
                    int id = OracleTest.argmax(logits);
                    assertThat(id)
                            .as(
                                    "%s case %d (%s): greedy id at step %d (reference margin %.3f)",
                                    stem,
                                    c,
                                    k.has("prompt") ? k.get("prompt").asText() : "chat",
                                    s,
                                    step.get("margin").asDouble())
                            .isEqualTo(step.get("id").asInt());
                    checked++;
                    logits = model.forward(st, new int[] {id}, 0, 1, false);
                }
                if (checked == steps.size() || steps.get(checked).get("margin").asDouble() < MIN_MARGIN) {
                    agreed++;
                }
                report.append(
                        String.format(Locale.ROOT, " case %d: worst %.3f, ids checked %d;", c, caseWorst, checked));
            }
        }
        double mean = sum / n;
        System.out.printf(
                Locale.ROOT,
                "RealModelTest %s: mean |Δlogprob| %.4f, worst %.3f, %d of %d above 1 nat, %d/%d greedy cases agree%s%n",
                stem,
                mean,
                worst,
                tail,
                n,
                agreed,
                cases.size(),
                report);
        assertThat(worst)
                .as("%s: worst |Δ log-prob| of llama.cpp's top-5", stem)
                .isLessThanOrEqualTo(MAX_LOGPROB_ERROR);
        assertThat(mean).as("%s: mean |Δ log-prob| of llama.cpp's top-5", stem).isLessThanOrEqualTo(MEAN_LOGPROB_ERROR);
        assertThat((double) tail / n)
                .as("%s: fraction of llama.cpp's top-5 entries off by more than 1 nat (%d of %d)", stem, tail, n)
                .isLessThanOrEqualTo(MAX_TAIL_FRACTION);
    }

    static double[] logSoftmax(float[] logits, int n) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, logits[i]);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Math.exp(logits[i] - max);
        }
        double logZ = max + Math.log(sum);
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = logits[i] - logZ;
        }
        return out;
    }
}

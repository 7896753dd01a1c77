package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.jacap.simd.Precision;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Jacap against llama.cpp, for every {@code oracle/reference/*.json} present: the logits after
 * the prompt, then greedy generation step by step with each step's top-5 logits. {@code .f32.json}
 * files (llama.cpp on the dequantized weights) run with {@link Precision#F32}; the others
 * (llama.cpp on the file as stored, activations converted per weight type) with
 * {@link Precision#NATIVE}.
 */
class OracleTest {
    /** Suggested by oracle/README.md §7 for a float32 runtime. */
    static final double F32_TOLERANCE = 5e-4;
    /** Gemma 3 computes GELU by the exact tanh formula; llama.cpp reads an fp16 table (README §7). */
    static final double GEMMA3_TOLERANCE = 5e-2;
    /**
     * Native runs reproduce llama.cpp's activation conversion (F16/BF16 rounding, Q8_0/Q8_K
     * quantization), so many runs agree to ~1e-5. But a last-bit difference upstream (summation
     * order; Vector API reductions even differ between JIT tiers, so this varies run to run) now
     * and then moves an activation across a rounding boundary of the converter, which shifts it by
     * a whole F16 ulp or Q8 step; from that token on the logits differ by ~1e-2 (F16) or up to
     * ~1.1 (K-quants, Gemma 3). The per-run bounds below allow for one such flip; that the
     * conversion itself is right is checked over all runs (see {@link #MIN_EXACT_NATIVE_FRACTION}).
     */
    static final double NATIVE_HALF_TOLERANCE = 0.1;

    static final double NATIVE_QUANTIZED_TOLERANCE = 2.0;
    /**
     * Without llama.cpp's conversion no native run of a quantized file agrees within 1e-3; with it,
     * about half do (the others saw a flip). Checked when at least {@link #MIN_RUNS_FOR_FRACTION} are present.
     */
    static final double MIN_EXACT_NATIVE_FRACTION = 0.25;

    static final int MIN_RUNS_FOR_FRACTION = 20;
    /** Greedy ids are asserted only at steps whose reference margin exceeds this many tolerances. */
    static final double MARGIN_TOLERANCES = 4;

    private static final ObjectMapper JSON = new ObjectMapper();
    /** "variant type precision" → max abs logit difference seen (printed after the run). */
    private static final Map<String, Double> MAX_DIFF = new ConcurrentSkipListMap<>();
    /** reference file → max abs logit difference of that run. */
    private static final Map<String, Double> RUN_DIFF = new ConcurrentSkipListMap<>();
    /** precision → {steps whose id was asserted, steps}. */
    private static final Map<String, int[]> ID_STEPS = new ConcurrentSkipListMap<>();

    @TestFactory
    Stream<DynamicTest> everyReferenceFile() throws IOException {
        Path refs = Fixtures.dir().resolve("oracle/reference");
        assumeTrue(Files.isDirectory(refs), "no oracle references at " + refs);
        List<Path> files;
        try (Stream<Path> s = Files.list(refs)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .sorted()
                    .toList();
        }
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> check(f)));
    }

    /** Variant and weight type from a reference name such as {@code llama3rope-Q4_K_M.p8.f32.json}. */
    static String[] variantAndType(String fileName) {
        String stem = fileName.substring(0, fileName.indexOf('.'));
        int dash = stem.indexOf('-');
        return dash < 0 ? new String[] {stem, "F32"} : new String[] {stem.substring(0, dash), stem.substring(dash + 1)};
    }

    /** Tolerance for a run: precision, architecture and the file's main weight type. */
    static double tolerance(String architecture, String type, boolean f32View) {
        boolean exactWeights = f32View || type.equals("F32");
        if (exactWeights) {
            return architecture.equals("gemma3") ? GEMMA3_TOLERANCE : F32_TOLERANCE;
        }
        if (type.equals("F16") || type.equals("BF16")) {
            return NATIVE_HALF_TOLERANCE;
        }
        return NATIVE_QUANTIZED_TOLERANCE;
    }

    private static void check(Path refFile) throws IOException {
        JsonNode ref = JSON.readTree(refFile.toFile());
        String name = refFile.getFileName().toString();
        boolean f32View = name.endsWith(".f32.json");
        Precision precision = f32View ? Precision.F32 : Precision.NATIVE;
        String[] vt = variantAndType(name);
        String architecture = ref.get("architecture").asText();
        double tol = tolerance(architecture, vt[1], f32View);

        Path modelFile = Fixtures.anyModel(ref.get("model_file").asText());
        int[] prompt = ints(ref.get("prompt_ids"));
        double maxDiff = 0;
        try (Model model = Model.load(modelFile, new LoadOptions(2, precision, null))) {
            InferenceState st = model.newState(256);
            float[] logits = model.forward(st, prompt, 0, prompt.length, false);
            float[] expected = floats(ref.get("logits_after_prompt"));
            assertThat(logits).hasSize(expected.length);
            for (int i = 0; i < expected.length; i++) {
                double d = Math.abs(logits[i] - expected[i]);
                maxDiff = Math.max(maxDiff, d);
                if (!(d <= tol)) {
                    fail(
                            "%s: logit %d after the prompt is %s, llama.cpp %s (|diff| %.3g > %.1g)",
                            name, i, logits[i], expected[i], d, tol);
                }
            }
            // Teacher-forced: the reference's greedy id is fed at every step, so the logits stay
            // comparable after a near-tie; our argmax must equal it wherever the margin is clear.
            for (JsonNode step : ref.get("steps")) {
                int s = step.get("step").asInt();
                if (s > 0) {
                    assertThat(st.position()).isEqualTo(step.get("pos").asInt());
                    logits = model.forward(
                            st, new int[] {ref.get("greedy_ids").get(s - 1).asInt()}, 0, 1, false);
                }
                int[] counts = ID_STEPS.computeIfAbsent(precision.toString(), k -> new int[2]);
                synchronized (counts) {
                    counts[1]++;
                    if (step.get("margin").asDouble() >= MARGIN_TOLERANCES * tol) {
                        counts[0]++;
                    }
                }
                if (step.get("margin").asDouble() >= MARGIN_TOLERANCES * tol) {
                    assertThat(argmax(logits))
                            .as("%s: greedy id at step %d", name, s)
                            .isEqualTo(step.get("token").asInt());
                }
                for (JsonNode pair : step.get("top5")) {
                    int id = pair.get(0).asInt();
                    double d = Math.abs(logits[id] - pair.get(1).asDouble());
                    maxDiff = Math.max(maxDiff, d);
                    if (!(d <= tol)) {
                        fail(
                                "%s: step %d logit of %d is %s, llama.cpp %s (|diff| %.3g > %.1g)",
                                name, s, id, logits[id], pair.get(1).asDouble(), d, tol);
                    }
                }
            }
        } finally {
            MAX_DIFF.merge(vt[0] + " " + vt[1] + " " + precision, maxDiff, Math::max);
            RUN_DIFF.put(name, maxDiff);
        }
    }

    /** Native runs of quantized files (Gemma 3 aside): a good share must agree with llama.cpp to 1e-3. */
    @AfterAll
    static void nativeConversionMatchesLlamaCpp() {
        List<Double> runs = RUN_DIFF.entrySet().stream()
                .filter(e -> !e.getKey().endsWith(".f32.json"))
                .filter(e -> variantAndType(e.getKey())[1].startsWith("Q"))
                .filter(e -> !variantAndType(e.getKey())[0].equals("gemma3")) // GELU: never exact, see GEMMA3_TOLERANCE
                .map(Map.Entry::getValue)
                .toList();
        if (runs.size() >= MIN_RUNS_FOR_FRACTION) {
            long exact = runs.stream().filter(d -> d <= 1e-3).count();
            assertThat((double) exact / runs.size())
                    .as("fraction of %d native quantized runs within 1e-3 of llama.cpp", runs.size())
                    .isGreaterThanOrEqualTo(MIN_EXACT_NATIVE_FRACTION);
        }
    }

    @AfterAll
    static void printSummary() {
        if (MAX_DIFF.isEmpty()) {
            return;
        }
        Map<String, Double> sorted = new TreeMap<>(MAX_DIFF);
        StringBuilder sb = new StringBuilder("max |logit - llama.cpp| per variant, type, precision:\n");
        sorted.forEach((k, v) -> sb.append(String.format("  %-28s %.3e%n", k, v)));
        ID_STEPS.forEach(
                (k, v) -> sb.append(String.format("%s: greedy id asserted at %d of %d steps%n", k, v[0], v[1])));
        for (boolean f32 : new boolean[] {true, false}) {
            List<Double> runs = RUN_DIFF.entrySet().stream()
                    .filter(e -> e.getKey().endsWith(".f32.json") == f32)
                    .map(Map.Entry::getValue)
                    .toList();
            sb.append(String.format(
                    "%s runs: %d, within 1e-4: %d, within 1e-3: %d, within 1e-2: %d%n",
                    f32 ? "f32-view" : "native",
                    runs.size(),
                    runs.stream().filter(d -> d <= 1e-4).count(),
                    runs.stream().filter(d -> d <= 1e-3).count(),
                    runs.stream().filter(d -> d <= 1e-2).count()));
        }
        System.out.print(sb);
        try {
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "oracle-max-diff.txt"), sb);
        } catch (IOException e) {
            // the summary is informational only
        }
    }

    static int argmax(float[] x) {
        int best = 0;
        for (int i = 1; i < x.length; i++) {
            if (x[i] > x[best]) {
                best = i;
            }
        }
        return best;
    }

    static int[] ints(JsonNode a) {
        int[] out = new int[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).asInt();
        }
        return out;
    }

    static float[] floats(JsonNode a) {
        float[] out = new float[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) a.get(i).asDouble();
        }
        return out;
    }

    static JsonNode read(Path p) {
        try {
            return JSON.readTree(p.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package org.jacap.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.jacap.JacapException;
import org.jacap.bench.progress.Progress;
import org.jacap.kv.KvCache;
import org.jacap.kv.KvCacheTypes;
import org.jacap.kv.KvStorage;
import org.jacap.kv.eviction.AdaKvAllocator;
import org.jacap.kv.eviction.UniformAllocator;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.Precision;
import org.jacap.testing.Fixtures;
import org.jacap.tokenizer.Tokenizer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The harness end to end on stories260K (trained, so its predictions on story text mean something). */
class FidelityEvaluationTest {
    @AutoClose
    private static Model model;

    @BeforeAll
    static void load() throws Exception {
        model = Model.load(Fixtures.model("stories260K.gguf"), new LoadOptions(1, Precision.F32, null));
    }

    private static List<int[]> windows(FidelityEvaluation.Settings s, int count) {
        return windows(3, s.windowLength(), count);
    }

    /** Two windows of five synthetic stories, as long as the decode settings' window. */
    private static List<int[]> decodeWindows(DecodeEvaluation.Settings s) {
        return windows(5, s.windowLength(), 2);
    }

    private static List<int[]> windows(int documents, int windowLength, int count) {
        Tokenizer tok = model.tokenizer();
        return TokenWindows.cut(
                Documents.synthetic(documents), t -> tok.encode(t, false, false), tok.bosId(), windowLength, count);
    }

    private static FidelityEvaluation.Settings settings(List<Double> ratios, List<Double> probeDepths) {
        return new FidelityEvaluation.Settings(48, 6, ratios, Protection.NONE, probeDepths, 12, 4, 50, 9);
    }

    @Test
    void fullRowIsExactAndRatioZeroKeepsTheModelsPredictions() {
        FidelityEvaluation.Settings s = settings(List.of(0.0, 0.5), List.of());
        List<int[]> w = windows(s, 3);
        assertThat(w).hasSize(3).allSatisfy(x -> assertThat(x).hasSize(55).startsWith(1));
        long[] progress = {0, 0};
        EvalReport r = new FidelityEvaluation(model, s, EvalPolicy.parseList("knorm,oracle"))
                .run(w, "test", (done, total, what) -> {
                    progress[0] = done;
                    progress[1] = total;
                });
        assertThat(progress[0]).isEqualTo(progress[1]).isEqualTo(3 * (1 + 4));
        List<CellSummary> cells = r.cells();
        assertThat(cells).extracting(CellSummary::policy).containsExactly("full", "knorm", "knorm", "oracle", "oracle");
        CellSummary full = cells.get(0);
        assertThat(full.meanKl().value()).isZero();
        assertThat(full.top1Agreement().value()).isEqualTo(1.0);
        assertThat(full.deltaNll().value()).isZero();
        assertThat(full.keptPerHead()).isEqualTo(48);
        // Ratio 0 keeps every entry: the compressed run is the reference run.
        for (CellSummary c : List.of(cells.get(1), cells.get(3))) {
            assertThat(c.ratio()).isZero();
            assertThat(c.meanKl().value()).isCloseTo(0, within(1e-6));
            assertThat(c.top1Agreement().value()).isEqualTo(1.0);
        }
        // Half the cache: a real, bounded loss, and the oracle (which saw the future) loses less than key norms.
        CellSummary knorm = cells.get(2);
        CellSummary oracle = cells.get(4);
        assertThat(knorm.keptPerHead()).isEqualTo(24);
        assertThat(knorm.meanKl().value()).isPositive();
        assertThat(knorm.meanKl().low()).isLessThanOrEqualTo(knorm.meanKl().value());
        assertThat(knorm.p90Kl().value()).isGreaterThanOrEqualTo(0);
        assertThat(knorm.top1Agreement().value()).isBetween(0.0, 1.0);
        assertThat(oracle.meanKl().value()).isLessThan(knorm.meanKl().value());
        assertThat(r.description()).startsWith("test · full-cache NLL ");
        assertThat(r.markdown()).contains("| oracle     |   0.5 |   24 |");
    }

    /**
     * The default {@code jacap} ({@code heads=capacity}) runs with AdaKV's allocator: its KV heads
     * share their layer's budget (the check holds it to the layer's total, not each head's), so it
     * keeps other entries than {@code jacap:heads=uniform} at the same budget.
     */
    @Test
    void headBudgetsShareTheLayersBudgetAndKeepOtherEntries() {
        FidelityEvaluation.Settings s = settings(List.of(0.5), List.of());
        List<int[]> w = windows(s, 2);
        List<EvalPolicy> policies = EvalPolicy.parseList("jacap:heads=uniform,jacap");
        assertThat(policies.get(1).forDocument(null, Protection.NONE).allocator())
                .isInstanceOf(AdaKvAllocator.class);
        EvalReport r = new FidelityEvaluation(model, s, policies).run(w, "heads", Progress.NONE);
        CellSummary even = r.cells().get(1);
        CellSummary shared = r.cells().get(2);
        assertThat(even.policy()).isEqualTo("jacap:heads=uniform");
        assertThat(shared.policy()).isEqualTo("jacap");
        assertThat(shared.keptPerHead()).isEqualTo(even.keptPerHead()).isEqualTo(24);
        assertThat(shared.meanKl().value())
                .isPositive()
                .isNotEqualTo(even.meanKl().value());
    }

    @Test
    void theBudgetCheckHoldsEachHeadOrEachLayer() {
        KvCache c = new KvCache(1, 2, 2, 2, 8);
        for (int i = 0; i < 6; i++) {
            c.append(0, 0, i, new float[2], 0, new float[2], 0);
        }
        for (int i = 0; i < 2; i++) {
            c.append(0, 1, i, new float[2], 0, new float[2], 0);
        }
        // 6 + 2 entries against 4 per head: over for one head, within the layer's 8
        FidelityEvaluation.checkBudget(c, 4, new AdaKvAllocator(0.2), "ada");
        assertThatThrownBy(() -> FidelityEvaluation.checkBudget(c, 4, new UniformAllocator(), "even"))
                .hasMessageContaining("even kept 6 entries in layer 0, KV head 0; the budget is 4");
        assertThatThrownBy(() -> FidelityEvaluation.checkBudget(c, 3, new AdaKvAllocator(0.2), "ada"))
                .hasMessageContaining("ada kept 8 entries in layer 0; the budget is 3 per KV head, 6 in all");
    }

    @Test
    void resultsAreReproducibleAndTheProbeRuns() {
        FidelityEvaluation.Settings s = settings(List.of(0.75), List.of(0.5));
        List<int[]> w = windows(s, 2);
        List<EvalPolicy> policies = EvalPolicy.parseList("streaming");
        EvalReport a = new FidelityEvaluation(model, s, policies).run(w, "a", Progress.NONE);
        EvalReport b = new FidelityEvaluation(model, s, policies).run(w, "a", Progress.NONE);
        for (int i = 0; i < a.cells().size(); i++) {
            CellSummary x = a.cells().get(i);
            CellSummary y = b.cells().get(i);
            // Same seeds and tie-breaking; the forward pass itself may differ in the last float bits between
            // JIT tiers (vector reductions), so compare to a tolerance rather than bit for bit.
            same(y.meanKl(), x.meanKl());
            same(y.p90Kl(), x.p90Kl());
            same(y.deltaNll(), x.deltaNll());
            same(y.probe().meanLogProb(), x.probe().meanLogProb());
            assertThat(y.probe().exactMatch()).isEqualTo(x.probe().exactMatch());
            assertThat(x.probe().exactMatch().value()).isBetween(0.0, 1.0);
            assertThat(x.probe().meanLogProb().value()).isNegative();
        }
    }

    private static void same(Estimate actual, Estimate expected) {
        assertThat(actual.value()).isCloseTo(expected.value(), within(1e-5));
        assertThat(actual.low()).isCloseTo(expected.low(), within(1e-5));
        assertThat(actual.high()).isCloseTo(expected.high(), within(1e-5));
    }

    @Test
    void probeSpanIsWrittenAtTheDepthAndRepeatedAfterTheContext() {
        FidelityEvaluation.Settings s = settings(List.of(0.5), List.of(0.0, 0.5, 1.0));
        FidelityEvaluation e = new FidelityEvaluation(model, s, EvalPolicy.parseList("oracle"));
        int[] window = new int[55];
        java.util.Arrays.fill(window, 7);
        window[0] = 1;
        int[] vocab = {100, 101, 102};
        for (int k = 0; k < 3; k++) {
            int[] w = e.probeWindow(window, vocab, 0, k);
            assertThat(w).hasSize(48 + 12);
            int start = new int[] {1, 1 + 18, 1 + 35}[k]; // 1 + round(depth × (48 − 1 − 12))
            assertThat(java.util.Arrays.copyOfRange(w, start, start + 12))
                    .containsExactly(java.util.Arrays.copyOfRange(w, 48, 60));
            assertThat(java.util.Arrays.stream(w, 48, 60).allMatch(t -> t >= 100 && t <= 102))
                    .isTrue();
            assertThat(w[0]).isEqualTo(1);
        }
        assertThat(FidelityEvaluation.probeVocabulary(List.of(new int[] {1, 5, 1, 9, 5})))
                .containsExactly(5, 9);
    }

    @Test
    void passkeyAtRatioZeroScoresAsTheFullCacheAndNeedsOneTrialPerWindow() {
        FidelityEvaluation.Settings s =
                new FidelityEvaluation.Settings(256, 4, List.of(0.0, 0.9), Protection.NONE, List.of(), 12, 4, 50, 9);
        List<int[]> w = windows(s, 2);
        Tokenizer tok = model.tokenizer();
        Passkey passkey = new Passkey(t -> tok.encode(t, false, false), tok.bosId());
        List<Passkey.Trial> trials = List.of(passkey.trial(256, 0.1, 9, 0), passkey.trial(256, 0.9, 9, 1));
        FidelityEvaluation e = new FidelityEvaluation(model, s, EvalPolicy.parseList("streaming,tova"));
        EvalReport r = e.run(w, trials, "pk", Progress.NONE);
        CellSummary full = r.cells().get(0);
        assertThat(full.passkey()).isNotNull();
        for (CellSummary c : r.cells()) {
            assertThat(c.passkey().value()).isBetween(0.0, 1.0);
            if (c.ratio() == 0) {
                assertThat(c.passkey().value()).isEqualTo(full.passkey().value());
            }
        }
        assertThat(r.markdown()).contains("passkey [95% CI]");
        assertThatThrownBy(() -> e.run(w, trials.subList(0, 1), "pk", Progress.NONE))
                .hasMessageContaining("give one per window");
    }

    @Test
    void decodeModeWithARoomyBudgetIsTheFullCacheAndATightOneLoses() {
        DecodeEvaluation.Settings roomy = new DecodeEvaluation.Settings(40, 70, 200, 20, 3);
        List<int[]> w = decodeWindows(roomy);
        EvalReport r = new DecodeEvaluation(model, roomy, EvalPolicy.parseList("tova")).run(w, "d", Progress.NONE);
        // no event ever fires: the same computation in other chunk sizes, so only float rounding differs
        // (and the normalisers' float exponentials, about 2 ulp: a floor near 1e-8 nats)
        assertThat(r.cells().get(1).meanKl().value()).isCloseTo(0, within(1e-7));
        DecodeEvaluation.Settings tight = new DecodeEvaluation.Settings(40, 70, 16, 20, 3);
        EvalReport t =
                new DecodeEvaluation(model, tight, EvalPolicy.parseList("tova,knorm")).run(w, "d", Progress.NONE);
        assertThat(t.cells()).extracting(CellSummary::keptPerHead).containsExactly(110, 16, 16);
        assertThat(t.cells().get(1).meanKl().value()).isPositive();
        assertThat(t.cells().get(1).ratio()).isCloseTo(1 - 16.0 / 110, within(1e-12));
        assertThatThrownBy(() -> new DecodeEvaluation(model, tight, EvalPolicy.parseList("oracle")))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("decode mode");
    }

    @Test
    void storageRowMeasuresTheStorageAloneAndThePoliciesCompressTheStoredCache() {
        FidelityEvaluation.Settings s = settings(List.of(0.0, 0.5), List.of(0.5));
        List<int[]> w = windows(s, 2);
        List<EvalPolicy> knorm = EvalPolicy.parseList("knorm");
        long[] progress = {0, 0};
        // f16 keys and values (stories260K's head size 8 does not take q8_0)
        FidelityEvaluation f16 = new FidelityEvaluation(model, s, knorm, KvCacheTypes.DEFAULT);
        EvalReport r = f16.run(w, "f16", (done, total, what) -> {
            progress[0] = done;
            progress[1] = total;
        });
        assertThat(progress[0])
                .isEqualTo(progress[1])
                .isEqualTo(f16.workUnits(2))
                .isEqualTo(2 * (1 + 3) * 2);
        List<CellSummary> cells = r.cells();
        assertThat(cells).extracting(CellSummary::policy).containsExactly("full", "f16 cache", "knorm", "knorm");
        CellSummary storage = cells.get(1);
        assertThat(storage.ratio()).isZero();
        assertThat(storage.keptPerHead()).isEqualTo(48);
        assertThat(storage.meanKl().value()).isPositive().isLessThan(1e-3); // f16 keys and values: a tiny cost
        // ratio 0 keeps the stored cache whole: exactly the storage row
        assertThat(cells.get(2).meanKl().value()).isEqualTo(storage.meanKl().value());
        assertThat(cells.get(2).probe().tokenAccuracy().value())
                .isEqualTo(storage.probe().tokenAccuracy().value());
        assertThat(cells.get(3).meanKl().value()).isGreaterThan(storage.meanKl().value());
        // f32 storage is the reference's own: no storage row, the same table as without the argument
        EvalReport f32 = new FidelityEvaluation(model, s, knorm, KvCacheTypes.F32).run(w, "x", Progress.NONE);
        EvalReport plain = new FidelityEvaluation(model, s, knorm).run(w, "x", Progress.NONE);
        assertThat(f32.cells()).hasSize(3);
        for (int i = 0; i < 3; i++) { // every figure but the scoring time
            assertThat(f32.cells().get(i).meanKl())
                    .isEqualTo(plain.cells().get(i).meanKl());
            assertThat(f32.cells().get(i).probe())
                    .isEqualTo(plain.cells().get(i).probe());
        }
        assertThat(FidelityEvaluation.storageRow(new KvCacheTypes(KvStorage.Q8_0, KvStorage.F16)))
                .isEqualTo("k=q8_0 v=f16 cache");
    }

    @Test
    void decodeModeWithAStorageAddsItsRow() {
        DecodeEvaluation.Settings tight = new DecodeEvaluation.Settings(40, 70, 16, 20, 3);
        List<int[]> w = decodeWindows(tight);
        DecodeEvaluation e = new DecodeEvaluation(model, tight, EvalPolicy.parseList("tova"), KvCacheTypes.DEFAULT);
        long[] progress = {0, 0};
        EvalReport r = e.run(w, "d", (done, total, what) -> {
            progress[0] = done;
            progress[1] = total;
        });
        assertThat(progress[0]).isEqualTo(progress[1]).isEqualTo(e.workUnits(2));
        assertThat(r.cells()).extracting(CellSummary::policy).containsExactly("full", "f16 cache", "tova");
        assertThat(r.cells().get(1).meanKl().value())
                .isPositive()
                .isLessThan(r.cells().get(2).meanKl().value());
    }

    @Test
    void slidingWindowLayersKeepTheirWindowWhenTheBudgetIsSmaller() throws Exception {
        // gemma3 oracle model: layer 0 has a 32-token window; a 64-token context cut to 16 entries per head
        // leaves layer 0 its 31 live rows and budgets layer 1 only (it failed the budget check before)
        try (Model gemma =
                Model.load(Fixtures.oracleModel("gemma3-Q8_0.gguf"), new LoadOptions(1, Precision.F32, null))) {
            FidelityEvaluation.Settings s =
                    new FidelityEvaluation.Settings(64, 4, List.of(0.75), Protection.NONE, List.of(), 12, 4, 20, 9);
            int vocab = gemma.config().vocabSize();
            List<int[]> w = List.of(new int[s.windowLength()], new int[s.windowLength()]);
            for (int d = 0; d < w.size(); d++) {
                int[] x = w.get(d);
                x[0] = gemma.tokenizer().bosId();
                for (int i = 1; i < x.length; i++) {
                    x[i] = 3 + (i * 7919 + d * 131) % (vocab - 3);
                }
            }
            EvalReport r = new FidelityEvaluation(gemma, s, EvalPolicy.parseList("tova,capkv"))
                    .run(w, "gemma3", (done, total, what) -> {});
            assertThat(r.cells()).extracting(CellSummary::policy).containsExactly("full", "tova", "capkv");
            for (CellSummary c : r.cells().subList(1, 3)) {
                assertThat(c.keptPerHead()).isEqualTo(16);
                assertThat(c.meanKl().value()).isPositive().isFinite();
            }
        }
    }

    @Test
    void settingsAndPoliciesAreChecked() {
        assertThatThrownBy(() -> settings(List.of(1.0), List.of())).hasMessageContaining("[0, 1)");
        assertThatThrownBy(() -> settings(List.of(0.5), List.of(1.5))).hasMessageContaining("probe depths");
        assertThatThrownBy(() -> new FidelityEvaluation.Settings(
                        20, 4, List.of(0.5), Protection.NONE, List.of(0.5), 32, 8, 10, 1))
                .hasMessageContaining("probe needs");
        assertThatThrownBy(() -> new FidelityEvaluation(
                        model,
                        new FidelityEvaluation.Settings(
                                4000, 64, List.of(0.5), Protection.NONE, List.of(), 32, 8, 10, 1),
                        EvalPolicy.parseList("oracle")))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("model's context");
        assertThatThrownBy(() -> EvalPolicy.parseList("bogus"))
                .hasMessageContaining("unknown KV eviction policy 'bogus'");
        assertThatThrownBy(() -> EvalPolicy.parseList("none")).hasMessageContaining("reference row");
        assertThatThrownBy(() -> EvalPolicy.parseList("knorm,knorm")).hasMessageContaining("twice");
        assertThat(EvalPolicy.parseList("snapkv:window=8,kernel=3,capkv"))
                .extracting(EvalPolicy::name)
                .containsExactly("snapkv:window=8,kernel=3", "capkv");
        assertThat(EvalPolicy.parseList("all"))
                .extracting(EvalPolicy::name)
                .contains(
                        "random",
                        "streaming",
                        "knorm",
                        "keydiff",
                        "snapkv",
                        "tova",
                        "h2o",
                        "expected",
                        "capkv",
                        "jacap",
                        "jacap-paper",
                        "jacap-literal",
                        "oracle")
                .doesNotContain("none");
    }
}

package org.jacap.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jacap.bench.support.Fixtures;
import org.jacap.kv.KvCacheTypes;
import org.jacap.kv.KvStorage;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.Precision;
import org.junit.jupiter.api.Test;

/** {@code eval -ctk/-ctv}: the reference stays f32; the storage gets its own row and is what policies compress. */
class StorageFidelityTest {
    private static final FidelityEvaluation.Settings SETTINGS =
            new FidelityEvaluation.Settings(48, 6, List.of(0.0, 0.5), Protection.NONE, List.of(), 12, 4, 50, 9);

    private static List<int[]> randomWindows(Model model, int count) {
        SplittableRandom r = new SplittableRandom(5);
        List<int[]> windows = new ArrayList<>();
        for (int d = 0; d < count; d++) {
            int[] w = new int[SETTINGS.windowLength()];
            w[0] = Math.max(0, model.tokenizer().bosId());
            for (int i = 1; i < w.length; i++) {
                w[i] = 1 + r.nextInt(model.config().vocabSize() - 1);
            }
            windows.add(w);
        }
        return windows;
    }

    private static List<CellSummary> run(Model model, KvCacheTypes types) {
        return new FidelityEvaluation(model, SETTINGS, EvalPolicy.parseList("knorm"), types)
                .run(randomWindows(model, 3), "test", (done, total, what) -> {})
                .cells();
    }

    @Test
    void theStoredRowMeasuresTheStorageAloneAndRatioZeroIsThatRow() throws Exception {
        try (Model model = Model.load(Fixtures.model("stories260K.gguf"), new LoadOptions(1, Precision.F32, null))) {
            List<CellSummary> f32 = run(model, KvCacheTypes.F32);
            assertThat(f32).extracting(CellSummary::policy).containsExactly("full", "knorm", "knorm");
            List<CellSummary> f16 = run(model, KvCacheTypes.DEFAULT);
            assertThat(f16).extracting(CellSummary::policy).containsExactly("full", "f16 cache", "knorm", "knorm");
            CellSummary stored = f16.get(1);
            // f16 rounding costs something, far less than evicting half the cache
            assertThat(stored.meanKl().value())
                    .isPositive()
                    .isLessThan(f32.get(2).meanKl().value() / 10);
            // ratio 0 keeps every stored entry: the same run as the stored row
            assertThat(f16.get(2).meanKl().value()).isEqualTo(stored.meanKl().value());
            assertThat(f32.get(1).meanKl().value()).isZero();
        }
    }

    @Test
    void q8_0CostsMoreThanF16() throws Exception {
        Path dir = Path.of(System.getProperty("jacap.fixtures", "../shared/fixtures"))
                .toAbsolutePath();
        Path gemma = dir.resolve("oracle/models/gemma3-F16.gguf"); // head size 128: q8_0 blocks fit
        assumeTrue(Files.isRegularFile(gemma), "fixture model missing: " + gemma);
        try (Model model = Model.load(gemma, new LoadOptions(1, Precision.F32, null))) {
            double f16 = run(model, KvCacheTypes.DEFAULT).get(1).meanKl().value();
            List<CellSummary> q8 = run(model, new KvCacheTypes(KvStorage.Q8_0, KvStorage.Q8_0));
            assertThat(q8.get(1).policy()).isEqualTo("q8_0 cache");
            assertThat(f16).isPositive();
            assertThat(q8.get(1).meanKl().value()).isGreaterThan(f16);
        }
    }
}

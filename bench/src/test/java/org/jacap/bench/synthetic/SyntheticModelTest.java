package org.jacap.bench.synthetic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufFile;
import org.jacap.model.InferenceState;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.Precision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SyntheticModelTest {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @TempDir
    Path dir;

    @Test
    void tinyQ4_0FileHasThePlannedTensorsAndRunsInTheModel() throws Exception {
        SyntheticPlan plan = SyntheticPlan.of(SyntheticShape.TINY, SyntheticType.Q4_0, 7);
        List<Long> progress = new ArrayList<>();
        Path file = SyntheticModel.ensure(plan, dir.resolve("cache"), 2, (done, total, what) -> progress.add(done));
        assertThat(file.getFileName().toString()).isEqualTo("synthetic-tiny-q4_0-7.gguf");
        assertThat(progress).isSorted().last().isEqualTo(plan.tensorBytes());
        assertThat(SyntheticModel.isCached(plan, dir.resolve("cache"))).isTrue();
        try (GgufFile g = GgufFile.open(file)) {
            assertThat(g.metadata().getInt("general.file_type")).isEqualTo(2);
            assertThat(g.tensors()).hasSize(plan.tensors().size());
            for (TensorPlan t : plan.tensors()) {
                assertThat(g.tensor(t.name()).type()).as(t.name()).isEqualTo(t.type());
                assertThat(g.tensor(t.name()).dims()).as(t.name()).containsExactly(t.dims());
            }
            assertThat(g.tensor("token_embd.weight").type()).isEqualTo(GgmlType.Q6_K);
            assertThat(g.tensor("blk.3.ffn_down.weight").type()).isEqualTo(GgmlType.Q4_0);
            MemorySegment norm = g.data(g.tensor("blk.0.ffn_norm.weight"));
            for (int i = 0; i < 256; i++) {
                assertThat(norm.getAtIndex(F32, i)).isEqualTo(1f);
            }
        }
        try (Model model = Model.load(file, new LoadOptions(1, Precision.NATIVE, null))) {
            assertThat(model.config().blockCount()).isEqualTo(4);
            assertThat(model.config().embeddingLength()).isEqualTo(256);
            assertThat(model.config().headCount()).isEqualTo(8);
            assertThat(model.config().headCountKv()).isEqualTo(4);
            assertThat(model.config().feedForwardLength()).isEqualTo(768);
            assertThat(model.config().vocabSize()).isEqualTo(4096);
            assertThat(model.tokenizer().encode("once upon a time", true, false)[0])
                    .isEqualTo(1);
            InferenceState state = model.newState(8);
            float[] logits = model.forward(state, new int[] {1, 500, 4000}, 0, 3, false);
            assertThat(logits).hasSize(4096);
            for (float v : logits) {
                assertThat(Float.isFinite(v)).isTrue();
            }
        }
    }

    @Test
    void bytesDoNotDependOnTheThreadCountWeightsAreScaledAndTheCacheIsReused() throws Exception {
        SyntheticPlan plan = SyntheticPlan.of(SyntheticShape.TINY, SyntheticType.F16, 3);
        Path one = dir.resolve("one.gguf");
        SyntheticModel.write(plan, one, 1, (d, t, w) -> {});
        Path cached = SyntheticModel.ensure(plan, dir, 2, (d, t, w) -> {});
        assertThat(Files.mismatch(one, cached)).isEqualTo(-1L);
        try (GgufFile g = GgufFile.open(cached)) {
            MemorySegment embd = g.data(g.tensor("token_embd.weight"));
            long n = embd.byteSize() / 2;
            double sum = 0;
            double sq = 0;
            for (long i = 0; i < n; i++) {
                double v = Float.float16ToFloat(embd.getAtIndex(I16, i));
                sum += v;
                sq += v * v;
            }
            assertThat(sum / n).isCloseTo(0, within(2e-4));
            assertThat(Math.sqrt(sq / n)).isCloseTo(0.02, within(2e-4));
        }

        FileTime before = FileTime.fromMillis(1_000_000L);
        Files.setLastModifiedTime(cached, before);
        List<String> progress = new ArrayList<>();
        assertThat(SyntheticModel.ensure(plan, dir, 2, (d, t, w) -> progress.add(w)))
                .isEqualTo(cached);
        assertThat(Files.getLastModifiedTime(cached)).isEqualTo(before);
        assertThat(progress).isEmpty();
        assertThat(SyntheticModel.isCached(SyntheticPlan.of(SyntheticShape.TINY, SyntheticType.F16, 4), dir))
                .isFalse();
    }
}

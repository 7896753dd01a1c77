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
import org.jacap.gguf.GgufTensorInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SyntheticModelTest {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @TempDir
    Path dir;

    @Test
    void tinyF16FileOpensWithTheExpectedShapeTypesAndValues() throws Exception {
        SyntheticPlan plan = SyntheticPlan.of(SyntheticShape.TINY, SyntheticType.F16, 7);
        List<Long> progress = new ArrayList<>();
        Path file = SyntheticModel.ensure(plan, dir.resolve("cache"), 2, (done, total, what) -> progress.add(done));
        assertThat(file.getFileName().toString()).isEqualTo("synthetic-tiny-f16-7.gguf");
        assertThat(progress).isSorted().last().isEqualTo(plan.tensorBytes());
        try (GgufFile g = GgufFile.open(file)) {
            assertThat(g.metadata().architecture()).isEqualTo("llama");
            assertThat(g.metadata().getInt("llama.block_count")).isEqualTo(4);
            assertThat(g.metadata().getInt("llama.embedding_length")).isEqualTo(256);
            assertThat(g.metadata().getStringArray("tokenizer.ggml.tokens")).hasSize(4096);
            assertThat(g.metadata().getInt("general.file_type")).isEqualTo(1);
            assertThat(g.tensors()).hasSize(plan.tensors().size());
            GgufTensorInfo q = g.tensor("blk.2.attn_q.weight");
            assertThat(q.dims()).containsExactly(256, 256);
            assertThat(q.type()).isEqualTo(GgmlType.F16);
            assertThat(g.tensor("token_embd.weight").type()).isEqualTo(GgmlType.F16);
            assertThat(g.findTensor("output.weight")).isEmpty();

            MemorySegment norm = g.data(g.tensor("blk.0.ffn_norm.weight"));
            for (int i = 0; i < 256; i++) {
                assertThat(norm.getAtIndex(F32, i)).isEqualTo(1f);
            }
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
    }

    @Test
    void bytesDoNotDependOnTheThreadCountAndTheCacheIsReused() throws Exception {
        SyntheticPlan plan = SyntheticPlan.of(SyntheticShape.TINY, SyntheticType.F16, 3);
        Path one = dir.resolve("one.gguf");
        SyntheticModel.write(plan, one, 1, (d, t, w) -> { });
        Path cached = SyntheticModel.ensure(plan, dir, 2, (d, t, w) -> { });
        assertThat(Files.mismatch(one, cached)).isEqualTo(-1L);

        FileTime before = FileTime.fromMillis(1_000_000L);
        Files.setLastModifiedTime(cached, before);
        List<String> progress = new ArrayList<>();
        assertThat(SyntheticModel.ensure(plan, dir, 2, (d, t, w) -> progress.add(w))).isEqualTo(cached);
        assertThat(Files.getLastModifiedTime(cached)).isEqualTo(before);
        assertThat(progress).isEmpty();

        Path otherSeed = SyntheticModel.ensure(SyntheticPlan.of(SyntheticShape.TINY, SyntheticType.F16, 4), dir, 2, (d, t, w) -> { });
        assertThat(Files.mismatch(otherSeed, cached)).isNotEqualTo(-1L);
    }
}

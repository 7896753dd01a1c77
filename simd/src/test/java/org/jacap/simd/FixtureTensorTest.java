package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Real GGUF tensors: dequantized values against the independent checksums, the quantizers
 * against llama-quantize's bytes, every oracle tensor against its F16 original, and the
 * matrix kernels against the dequantized rows.
 */
class FixtureTensorTest {
    @AutoClose
    static ThreadPool pool;

    @BeforeAll
    static void pool() {
        pool = new ThreadPool(2);
    }

    static final List<String> VARIANTS = List.of("llama", "llama3rope", "qwen2", "qwen3", "gemma3", "phi3");
    static final List<String> ORACLE_TYPES = List.of("Q8_0", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K", "BF16");

    @TestFactory
    Stream<DynamicTest> dequantizedValuesMatchTheReferenceChecksums() throws Exception {
        Path fixtures = Fixtures.dir();
        JsonNode root = new ObjectMapper()
                .readTree(fixtures.resolve("reference/tensor_checksums.json").toFile());
        List<DynamicTest> tests = new ArrayList<>();
        for (Map.Entry<String, JsonNode> model : root.properties()) {
            Path file = fixtures.resolve("models").resolve(model.getKey());
            tests.add(DynamicTest.dynamicTest(model.getKey(), () -> {
                try (GgufFile gguf = GgufFile.open(file)) {
                    for (JsonNode t : model.getValue().get("tensors")) {
                        GgufTensorInfo info = gguf.tensor(t.get("name").asText());
                        float[] v = Dequantize.all(info.type(), gguf.data(info));
                        float[] s = new float[v.length];
                        Dequantize.rowScalar(info.type(), gguf.data(info), 0, s, 0, s.length);
                        if (!java.util.Arrays.equals(s, v)) {
                            fail("scalar and vector dequantization differ on " + info);
                        }
                        for (int i = 0; i < 8; i++) {
                            assertThat((double) v[i])
                                    .as("%s first8[%d]", info, i)
                                    .isEqualTo(t.get("first8").get(i).asDouble());
                        }
                        double sum = 0;
                        double sumsq = 0;
                        for (float f : v) {
                            sum += f;
                            sumsq += (double) f * f;
                        }
                        double es = t.get("sum").asDouble();
                        double eq = t.get("sumsq").asDouble();
                        assertThat(Math.abs(sum - es))
                                .as("%s sum %s vs %s", info, sum, es)
                                .isLessThanOrEqualTo(1e-6 * sumsq + 1e-4);
                        assertThat(Math.abs(sumsq - eq)).as("%s sumsq", info).isLessThanOrEqualTo(1e-6 * eq);
                    }
                }
            }));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> quantizersReproduceTheStoriesFilesByteForByte() {
        return Stream.of("Q8_0", "Q4_0")
                .map(q -> DynamicTest.dynamicTest("stories260K-" + q, () -> {
                    try (GgufFile f32 = GgufFile.open(Fixtures.file("models/stories260K.gguf"));
                            GgufFile quant = GgufFile.open(Fixtures.file("models/stories260K-" + q + ".gguf"))) {
                        int checked = 0;
                        for (GgufTensorInfo info : quant.tensors()) {
                            if (!info.type().isQuantized()) {
                                continue;
                            }
                            byte[] expected = quant.data(info).toArray(ValueLayout.JAVA_BYTE);
                            float[] master = Dequantize.all(GgmlType.F32, f32.data(f32.tensor(info.name())));
                            assertBytes(Quantize.toBytes(info.type(), master), expected, "quantize(F32 " + info + ")");
                            float[] deq = Dequantize.all(info.type(), quant.data(info));
                            assertBytes(
                                    Quantize.toBytes(info.type(), deq), expected, "quantize(dequantize(" + info + "))");
                            checked++;
                        }
                        assertThat(checked).isGreaterThan(10);
                    }
                }));
    }

    @TestFactory
    Stream<DynamicTest> oracleTensorsMatchTheirF16OriginalsAndTheQuantizers() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String variant : VARIANTS) {
            for (String type : ORACLE_TYPES) {
                String name = variant + "-" + type + ".gguf";
                if (type.equals("BF16") && !variant.equals("llama")) {
                    continue;
                }
                tests.add(DynamicTest.dynamicTest(name, () -> checkOracle(variant, name)));
            }
        }
        return tests.stream();
    }

    /** Relative RMS error bound of each stored type against the F16 master. */
    static double rmsBound(GgmlType t) {
        return switch (t) {
            case BF16 -> 0.004;
            case Q8_0 -> 0.01;
            case Q6_K -> 0.03;
            case Q5_K -> 0.06;
            case Q4_K -> 0.12;
            case Q4_0 -> 0.15;
            default -> throw new AssertionError(t);
        };
    }

    static void checkOracle(String variant, String name) throws Exception {
        try (GgufFile f16 = GgufFile.open(Fixtures.file("oracle/models/" + variant + "-F16.gguf"));
                GgufFile q = GgufFile.open(Fixtures.file("oracle/models/" + name))) {
            Set<GgmlType> seen = new java.util.HashSet<>();
            for (GgufTensorInfo info : q.tensors()) {
                if (info.type() == GgmlType.F32) {
                    continue;
                }
                seen.add(info.type());
                GgufTensorInfo orig = f16.tensor(info.name());
                float[] master = Dequantize.all(orig.type(), f16.data(orig));
                float[] deq = Dequantize.all(info.type(), q.data(info));
                double e = 0;
                double s = 0;
                for (int i = 0; i < master.length; i++) {
                    e += (master[i] - deq[i]) * (double) (master[i] - deq[i]);
                    s += master[i] * (double) master[i];
                }
                assertThat(Math.sqrt(e / s))
                        .as("%s %s relative RMS error", name, info)
                        .isLessThan(rmsBound(info.type()));
                byte[] expected = q.data(info).toArray(ValueLayout.JAVA_BYTE);
                assertBytes(Quantize.toBytes(info.type(), master), expected, name + " quantize(F16 " + info + ")");
                checkKernels(WeightMatrix.of(q, info), deq, name);
            }
            assertThat(seen).isNotEmpty();
        }
    }

    /** MatMul on the stored tensor equals the product with the dequantized rows. */
    static void checkKernels(WeightMatrix w, float[] deq, String name) {
        int batch = 3;
        float[] x = Blocks.gaussian(batch * w.cols(), w.rows(), 1f);
        for (Precision p : Precision.values()) {
            float[] xr = x.clone();
            if (p == Precision.NATIVE) {
                w.kernel().vecDotType().round(xr, 0, xr, 0, xr.length);
            }
            for (int b : new int[] {1, batch}) {
                float[] out = new float[b * w.rows()];
                new MatMul(pool, p).multiply(w, x, 0, b, out, 0);
                for (int t = 0; t < b; t++) {
                    for (int r = 0; r < w.rows(); r++) {
                        double ref = 0;
                        double abs = 0;
                        for (int c = 0; c < w.cols(); c++) {
                            double v = (double) deq[r * w.cols() + c] * xr[t * w.cols() + c];
                            ref += v;
                            abs += Math.abs(v);
                        }
                        double err = Math.abs(out[t * w.rows() + r] - ref);
                        if (!(err <= 1e-5 * abs + 1e-30)) {
                            fail(name + " " + w.type() + " " + p + " batch " + b + " row " + r + ": "
                                    + out[t * w.rows() + r] + " vs " + ref);
                        }
                    }
                }
            }
        }
    }

    static void assertBytes(byte[] actual, byte[] expected, String what) {
        assertThat(actual.length).as(what + " size").isEqualTo(expected.length);
        for (int i = 0; i < expected.length; i++) {
            if (actual[i] != expected[i]) {
                fail(what + ": first difference at byte " + i + " (" + actual[i] + " vs " + expected[i] + ")");
            }
        }
    }
}

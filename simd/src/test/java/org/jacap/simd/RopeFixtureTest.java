package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.data.Offset;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Cross-checks Rope against the float64 eviction fixtures (../shared/fixtures/eviction): the
 * frequencies, the pair layout, the averaged future rotation and the stored post-RoPE queries.
 */
class RopeFixtureTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static Stream<Path> cases() throws IOException {
        Path dir = Fixtures.dir().resolve("eviction");
        Assumptions.assumeTrue(Files.isDirectory(dir), "eviction fixtures not found at " + dir.toAbsolutePath());
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> p.getFileName().toString().matches("c\\d+.*\\.json"))
                    .filter(p -> !p.getFileName().toString().endsWith(".inputs.json"))
                    .sorted()
                    .forEach(files::add);
        }
        return files.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void ropeReproducesTheFixture(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        JsonNode r = root.get("rope");
        int d = root.get("dims").get("d").asInt();
        RopeLayout layout = RopeLayout.valueOf(r.get("layout").asText().toUpperCase(java.util.Locale.ROOT));
        // GGUF stores rope_freqs as F32: the fixture's 6-digit factors are not all floats, so
        // the float-factor constructor agrees to float rounding and withFrequencies exactly
        float[] factors = null;
        double[] storedInv = new double[d / 2];
        for (int j = 0; j < d / 2; j++) {
            storedInv[j] = r.get("inv_freq").get(j).asDouble();
        }
        if (!r.get("freq_factors").isNull()) {
            factors = new float[d / 2];
            for (int j = 0; j < d / 2; j++) {
                factors[j] = (float) r.get("freq_factors").get(j).asDouble();
            }
        }
        Rope fromBase = new Rope(d, d, r.get("theta_base").asDouble(), factors, layout);
        double[] inv = fromBase.invFreq();
        for (int j = 0; j < d / 2; j++) {
            assertThat(inv[j]).as("inv_freq[%d]", j).isCloseTo(storedInv[j], Offset.offset(1e-7 * storedInv[j]));
            if (factors == null || factors[j] == r.get("freq_factors").get(j).asDouble()) {
                assertThat(inv[j]).as("inv_freq[%d]", j).isCloseTo(storedInv[j], Offset.offset(1e-15 * storedInv[j]));
            }
        }
        Rope rope = Rope.withFrequencies(d, storedInv, layout);
        assertThat(rope.invFreq()).containsExactly(storedInv);
        for (int j = 0; j < d / 2; j++) {
            assertThat(rope.pairFirst(j)).isEqualTo(r.get("pairs").get(j).get(0).asInt());
            assertThat(rope.pairSecond(j))
                    .isEqualTo(r.get("pairs").get(j).get(1).asInt());
            assertThat(fromBase.pairFirst(j)).isEqualTo(rope.pairFirst(j));
            assertThat(fromBase.pairSecond(j)).isEqualTo(rope.pairSecond(j));
        }

        // averaged future rotation from our frequencies
        int first = r.get("future_positions").get(0).asInt();
        int count = r.get("n_future").asInt();
        for (int j = 0; j < d / 2; j++) {
            double c = 0;
            double s = 0;
            for (int p = first; p < first + count; p++) {
                c += Math.cos(rope.angle(p, j));
                s += Math.sin(rope.angle(p, j));
            }
            assertThat(c / count).isCloseTo(r.get("cbar").get(j).asDouble(), Offset.offset(1e-12));
            assertThat(s / count).isCloseTo(r.get("sbar").get(j).asDouble(), Offset.offset(1e-12));
        }

        // post-RoPE queries: Q[h][p] = rotate(Qpre[h][p], p), stored to 5-6 significant digits
        JsonNode inputs = root.has("inputs")
                ? root.get("inputs")
                : JSON.readTree(file.resolveSibling(root.get("inputs_file").asText())
                                .toFile())
                        .get("inputs");
        JsonNode qpre = inputs.get("Qpre");
        JsonNode q = inputs.get("Q");
        float[] x = new float[d];
        float[] y = new float[d];
        float[] table = rope.newTable();
        int checked = 0;
        for (int h = 0; h < qpre.size(); h++) {
            for (int p = 0; p < qpre.get(h).size(); p++) {
                double norm = 0;
                for (int c = 0; c < d; c++) {
                    x[c] = (float) qpre.get(h).get(p).get(c).asDouble();
                    norm = Math.max(norm, Math.abs(x[c]));
                }
                System.arraycopy(x, 0, y, 0, d);
                rope.apply(x, 0, 1, p);
                rope.fillTable(p, table);
                rope.rotate(y, 0, 1, table);
                for (int c = 0; c < d; c++) {
                    double expected = q.get(h).get(p).get(c).asDouble();
                    double tol = 1e-4 * norm + 1e-6;
                    if (!(Math.abs(x[c] - expected) <= tol) || !(Math.abs(y[c] - expected) <= tol)) {
                        throw new AssertionError(file.getFileName() + ": head " + h + " pos " + p + " channel " + c
                                + ": expected " + expected + ", apply " + x[c] + ", rotate " + y[c]);
                    }
                    checked++;
                }
            }
        }
        assertThat(checked).isPositive();
    }
}

package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Budget arithmetic of {@code budgets.json}: uniform counts, AdaKV safeguards, PyramidKV layers. */
class EvictionBudgetsTest {

    @TestFactory
    Stream<DynamicTest> budgetsJson() throws IOException {
        Path dir = EvictionFixture.directory();
        JsonNode root =
                EvictionFixture.JSON.readTree(dir.resolve("budgets.json").toFile());
        List<DynamicTest> tests = new ArrayList<>();
        AdaKvAllocator ada = new AdaKvAllocator(AdaKvAllocator.DEFAULT_ALPHA);
        for (JsonNode u : root.get("uniform")) {
            int n = u.get("n").asInt();
            double r = u.get("compression_ratio").asDouble();
            tests.add(DynamicTest.dynamicTest("uniform n=" + n + " r=" + r, () -> {
                int kept = Budget.ratio(r).keptCount(n);
                assertEquals(u.get("n_kept").asInt(), kept, "n_kept");
                assertEquals(u.get("adakv_n_safe").asInt(), ada.safeCount(kept), "adakv n_safe");
            }));
        }
        for (JsonNode p : root.get("pyramidkv")) {
            int n = p.get("n").asInt();
            double r = p.get("compression_ratio").asDouble();
            int w = p.get("window_size").asInt();
            double beta = p.get("beta").asDouble();
            int layers = p.get("num_layers").asInt();
            tests.add(DynamicTest.dynamicTest(
                    "pyramidkv n=" + n + " r=" + r + " w=" + w + " beta=" + beta + " L=" + layers, () -> {
                        PyramidKvAllocator allocator = new PyramidKvAllocator(w, beta);
                        JsonNode want = p.get("n_kept_per_layer");
                        for (int l = 0; l < layers; l++) {
                            PyramidKvAllocator.LayerBudget b = allocator.layerBudget(n, Budget.ratio(r), layers, l);
                            assertEquals(want.get(l).asInt(), b.count(), "layer " + l);
                            assertEquals(p.get("fallback").asBoolean(), b.fallback(), "fallback");
                            assertEquals(p.get("clipped").asBoolean(), b.clipped(), "clipped");
                            assertEquals(p.get("min_num").asDouble(), b.min(), 0.0, "min");
                            assertEquals(p.get("max_num").asDouble(), b.max(), 0.0, "max");
                        }
                    }));
        }
        return tests.stream();
    }

    @Test
    void ratioTruncatesInDouble() {
        assertEquals(9, Budget.ratio(0.9).keptCount(100));
        assertEquals(99, Budget.ratio(0.9).keptCount(1000));
        assertEquals(
                100,
                PyramidKvAllocator.layerBudget(1000, 1000 * (1.0 - 0.9), 64, 20, 24, 5)
                        .count());
        assertEquals(62, PyramidKvAllocator.layerBudget(100, 50, 4, 2, 5, 1).count()); // 62.5 → 62
        assertEquals(38, PyramidKvAllocator.layerBudget(100, 50, 4, 2, 5, 3).count()); // 37.5 → 38
        assertEquals(7, Budget.kept(7).keptCount(100));
        assertEquals(5, Budget.kept(7).keptCount(5));
    }
}

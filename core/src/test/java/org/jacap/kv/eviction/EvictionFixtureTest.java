package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case × policy × allocator × budget of the eviction test vectors, as named dynamic tests:
 * scores and intermediates to 1e-9 relative, kept sets exactly (exact ties included).
 */
class EvictionFixtureTest {

    @TestFactory
    Stream<DynamicNode> fixtureCases() {
        return EvictionFixture.caseFiles().stream().map(EvictionFixtureTest::caseTests);
    }

    private static DynamicNode caseTests(Path file) {
        Supplier<EvictionFixture> fixture = memo(() -> EvictionFixture.load(file));
        JsonNode root = readHeaderAndExpected(file);
        String id = root.get("case_id").asText();
        List<DynamicNode> nodes = new ArrayList<>();
        nodes.add(DynamicTest.dynamicTest(id + " averaged rotation", () -> checkRotation(fixture.get())));
        nodes.add(DynamicTest.dynamicTest(id + " budgets", () -> checkBudgets(fixture.get())));
        Map<String, Supplier<Scored>> scored = new HashMap<>();
        for (Map.Entry<String, JsonNode> e : root.get("expected").properties()) {
            scored.put(e.getKey(), scorer(e.getKey(), fixture));
            nodes.add(policyTests(id, e.getKey(), e.getValue(), fixture, scored.get(e.getKey())));
        }
        nodes.add(DynamicTest.dynamicTest(
                id + " boundary ties reproduced exactly", () -> checkTies(fixture.get(), scored)));
        return DynamicContainer.dynamicContainer(id, nodes);
    }

    private static JsonNode readHeaderAndExpected(Path file) {
        try {
            return EvictionFixture.JSON.readTree(file.toFile());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Scores of one policy, computed once and shared by its tests. */
    private record Scored(double[][] scores, Map<String, double[][]> trace, LayerSnapshot snapshot, KvScorer scorer) {}

    private static Supplier<Scored> scorer(String policy, Supplier<EvictionFixture> fixture) {
        return memo(() -> {
            EvictionFixture f = fixture.get();
            KvScorer scorer = f.scorer(policy);
            LayerSnapshot snapshot = f.snapshot(scorer.statistics());
            Map<String, List<double[]>> rows = new HashMap<>();
            double[][] s = scorer.score(snapshot, (name, row, values) -> {
                List<double[]> list = rows.computeIfAbsent(name, k -> new ArrayList<>());
                while (list.size() <= row) {
                    list.add(null);
                }
                list.set(row, values);
            });
            Map<String, double[][]> trace = new HashMap<>();
            rows.forEach((k, v) -> trace.put(k, v.toArray(double[][]::new)));
            return new Scored(s, trace, snapshot, scorer);
        });
    }

    private static DynamicNode policyTests(
            String id, String policy, JsonNode expected, Supplier<EvictionFixture> fixture, Supplier<Scored> scored) {
        List<DynamicNode> nodes = new ArrayList<>();
        String prefix = id + " " + policy;
        if (expected.hasNonNull("scores")) {
            nodes.add(DynamicTest.dynamicTest(
                    prefix + " scores",
                    () -> assertRowsClose(
                            prefix + " scores",
                            EvictionFixture.matrix(expected.get("scores")),
                            scored.get().scores())));
        }
        JsonNode intermediates = expected.get("intermediates");
        if (intermediates != null) {
            for (Map.Entry<String, JsonNode> e : intermediates.properties()) {
                String name = e.getKey();
                nodes.add(DynamicTest.dynamicTest(prefix + " intermediate " + name, () -> {
                    double[][] actual = scored.get().trace().get(name);
                    if (actual == null) {
                        fail(prefix + ": scorer recorded no intermediate '" + name + "'");
                    }
                    assertRowsClose(prefix + " " + name, EvictionFixture.rows(e.getValue()), actual);
                }));
            }
        }
        for (Map.Entry<String, JsonNode> alloc : expected.get("kept").properties()) {
            for (Map.Entry<String, JsonNode> budget : alloc.getValue().properties()) {
                String name = prefix + " " + alloc.getKey() + " " + budget.getKey();
                nodes.add(DynamicTest.dynamicTest(name, () -> {
                    EvictionFixture f = fixture.get();
                    Scored s = scored.get();
                    EvictionPolicy policyUnderTest = new EvictionPolicy(s.scorer(), f.allocator(alloc.getKey()));
                    KeptEntries kept = policyUnderTest.select(s.snapshot(), f.budget(budget.getKey()));
                    int[][] want = EvictionFixture.intRows(budget.getValue());
                    for (int g = 0; g < want.length; g++) {
                        assertArrayEquals(want[g], kept.kept(g), name + " head " + g);
                    }
                }));
            }
        }
        return DynamicContainer.dynamicContainer(prefix, nodes);
    }

    /** Per row: {@code |x − y| ≤ 1e-9·|y| + 1e-12·max|y|}. */
    static void assertRowsClose(String what, double[][] expected, double[][] actual) {
        assertEquals(expected.length, actual.length, what + ": rows");
        for (int r = 0; r < expected.length; r++) {
            assertEquals(expected[r].length, actual[r].length, what + ": length of row " + r);
            double scale = 0;
            for (double y : expected[r]) {
                scale = Math.max(scale, Math.abs(y));
            }
            for (int i = 0; i < expected[r].length; i++) {
                double y = expected[r][i];
                double x = actual[r][i];
                if (!(Math.abs(x - y) <= 1e-9 * Math.abs(y) + 1e-12 * scale)) {
                    fail(what + " row " + r + " [" + i + "]: expected " + y + ", got " + x + " (rel "
                            + Math.abs(x - y) / Math.abs(y) + ")");
                }
            }
        }
    }

    private static void checkRotation(EvictionFixture f) {
        JsonNode rope = f.root.get("rope");
        AveragedRotation r = AveragedRotation.overPositions(
                f.layout,
                f.invFreq,
                rope.get("future_positions").get(0).asLong(),
                rope.get("n_future").asInt());
        assertEquals(f.n, rope.get("future_positions").get(0).asInt());
        double[] cbar = EvictionFixture.vector(rope.get("cbar"));
        double[] sbar = EvictionFixture.vector(rope.get("sbar"));
        for (int j = 0; j < cbar.length; j++) {
            assertEquals(cbar[j], r.cbar()[j], 1e-13, "cbar " + j);
            assertEquals(sbar[j], r.sbar()[j], 1e-13, "sbar " + j);
        }
        JsonNode pairs = rope.get("pairs");
        for (int j = 0; j < pairs.size(); j++) {
            assertEquals(pairs.get(j).get(0).asInt(), f.layout.first(j, f.d));
            assertEquals(pairs.get(j).get(1).asInt(), f.layout.second(j, f.d));
        }
    }

    private static void checkBudgets(EvictionFixture f) {
        AdaKvAllocator ada = (AdaKvAllocator) f.allocator("adakv");
        PyramidKvAllocator pyramid = (PyramidKvAllocator) f.allocator("pyramidkv");
        for (JsonNode b : f.root.get("budgets")) {
            String id = b.get("id").asText();
            Budget budget = f.budget(id);
            int nKept = budget.keptCount(f.n);
            assertEquals(b.get("n_kept").asInt(), nKept, id + " n_kept");
            assertEquals(b.get("adakv_n_safe").asInt(), ada.safeCount(nKept), id + " adakv n_safe");
            PyramidKvAllocator.LayerBudget lb = pyramid.layerBudget(f.n, budget, f.layerCount(), f.layer());
            assertEquals(b.get("pyramidkv_n_kept").asInt(), lb.count(), id + " pyramidkv n_kept");
            assertEquals(b.get("pyramidkv_fallback").asBoolean(), lb.fallback(), id + " pyramidkv fallback");
            assertEquals(b.get("pyramidkv_clipped").asBoolean(), lb.clipped(), id + " pyramidkv clipped");
        }
    }

    /** Each listed tie is a real exact tie in our scores: lowest kept == highest evicted, bit for bit. */
    private static void checkTies(EvictionFixture f, Map<String, Supplier<Scored>> scored) {
        for (JsonNode tie : f.root.get("boundary_ties")) {
            if (!tie.get("head").isInt()) {
                continue;
            } // adakv ties span heads; its kept sets are checked anyway
            String policy = tie.get("policy").asText();
            int g = tie.get("head").asInt();
            double[][] s = scored.get(policy).get().scores();
            int[] kept = f.allocator(tie.get("allocator").asText())
                    .select(s, f.budget(tie.get("budget").asText()), f.layer(), f.layerCount())[g];
            boolean[] isKept = new boolean[s[g].length];
            for (int i : kept) {
                isKept[i] = true;
            }
            double lowestKept = Double.POSITIVE_INFINITY;
            double highestEvicted = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < s[g].length; i++) {
                if (isKept[i]) {
                    lowestKept = Math.min(lowestKept, s[g][i]);
                } else {
                    highestEvicted = Math.max(highestEvicted, s[g][i]);
                }
            }
            assertTrue(
                    lowestKept == highestEvicted,
                    tie + ": lowest kept " + lowestKept + " vs highest evicted " + highestEvicted + " kept "
                            + Arrays.toString(kept));
        }
    }

    private static <T> Supplier<T> memo(Supplier<T> supplier) {
        return new Supplier<>() {
            private T value;

            @Override
            public synchronized T get() {
                if (value == null) {
                    value = supplier.get();
                }
                return value;
            }
        };
    }
}

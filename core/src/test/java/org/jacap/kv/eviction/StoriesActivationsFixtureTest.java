package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jacap.kv.ForwardObserver;
import org.jacap.kv.KvCache;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Optional end-to-end check (fixture README, c08): running stories260K on {@code structure.token_ids}
 * reproduces the recorded layer-2 activations (KV heads 2–3, query heads 4–7), and the engine's own
 * statistics pick nearly the fixture's CapKV kept set. Every eviction case with token ids is used;
 * skipped when none is present (c08 is not in every fixture folder).
 */
class StoriesActivationsFixtureTest {
    private static final int LAYER = 2;
    private static final int FIRST_KV = 2;
    private static final int FIRST_Q = 4;
    private static final int D = 8;

    @TestFactory
    Stream<DynamicTest> storiesActivationsAreReproduced() throws IOException {
        Path dir = Fixtures.dir().resolve("eviction");
        assumeTrue(Files.isDirectory(dir), "no eviction fixtures at " + dir);
        ObjectMapper json = new ObjectMapper();
        List<Path> cases;
        try (Stream<Path> files = Files.list(dir)) {
            cases = files.filter(p -> p.getFileName().toString().matches("c\\d+.*\\.json")
                            && !p.getFileName().toString().endsWith(".inputs.json"))
                    .sorted()
                    .toList();
        }
        List<DynamicTest> tests = new java.util.ArrayList<>();
        for (Path c : cases) {
            JsonNode root = json.readTree(c.toFile());
            JsonNode ids = root.path("structure").path("token_ids");
            if (!ids.isArray() || ids.isEmpty()) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(c.getFileName().toString(), () -> check(json, dir, root, ids)));
        }
        assumeTrue(!tests.isEmpty(), "no eviction case with structure.token_ids (c08) in " + dir + ": skipped");
        return tests.stream();
    }

    private static void check(ObjectMapper json, Path dir, JsonNode root, JsonNode idsNode) throws IOException {
        JsonNode inputs = root.has("inputs")
                ? root.get("inputs")
                : json.readTree(dir.resolve(root.get("inputs_file").asText()).toFile())
                        .get("inputs");
        int[] ids = new int[idsNode.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = idsNode.get(i).asInt();
        }
        try (Model model = StoriesModel.load(StoriesModel.STORIES)) {
            InferenceState st = model.newState(ids.length + 1);
            EvictionObserver observer = new EvictionObserver(
                    KvCompressor.shapes(model),
                    EvictionPolicies.policy("capkv", "uniform").statistics(),
                    0);
            float[][] qPre = new float[ids.length][];
            float[][] qPost = new float[ids.length][];
            st.setObserver(new ForwardObserver() {
                @Override
                public void onQuery(int layer, int position, float[] pre, int preOff, float[] post, int postOff) {
                    if (layer == LAYER) {
                        qPre[position] = java.util.Arrays.copyOfRange(pre, preOff, preOff + 8 * D);
                        qPost[position] = java.util.Arrays.copyOfRange(post, postOff, postOff + 8 * D);
                    }
                    observer.onQuery(layer, position, pre, preOff, post, postOff);
                }
            });
            model.forward(st, ids, 0, ids.length, false);
            KvCache cache = st.kvCache();
            for (int g = 0; g < 2; g++) {
                for (int i = 0; i < ids.length; i++) {
                    for (int a = 0; a < D; a++) {
                        close(
                                cache.keys(LAYER, FIRST_KV + g)[i * D + a],
                                inputs.get("K").get(g).get(i).get(a),
                                "K");
                        close(
                                cache.values(LAYER, FIRST_KV + g)[i * D + a],
                                inputs.get("V").get(g).get(i).get(a),
                                "V");
                    }
                }
            }
            for (int h = 0; h < 4; h++) {
                for (int i = 0; i < ids.length; i++) {
                    for (int a = 0; a < D; a++) {
                        close(
                                qPre[i][(FIRST_Q + h) * D + a],
                                inputs.get("Qpre").get(h).get(i).get(a),
                                "Qpre");
                        close(
                                qPost[i][(FIRST_Q + h) * D + a],
                                inputs.get("Q").get(h).get(i).get(a),
                                "Q");
                    }
                }
            }
            // the engine's own statistics and R̄ select nearly the fixture's CapKV set
            st.setObserver(observer);
            KvCompressor.compress(model, st, EvictionPolicies.policy("capkv", "uniform"), Budget.ratio(0.5));
            JsonNode expected =
                    root.get("expected").get("capkv").get("kept").get("uniform").get("r0.5");
            for (int g = 0; g < 2; g++) {
                Set<Integer> want = new HashSet<>();
                expected.get(g).forEach(p -> want.add(p.asInt()));
                int n = cache.length(LAYER, FIRST_KV + g);
                assertThat(n).isEqualTo(want.size());
                int same = 0;
                for (int j = 0; j < n; j++) {
                    if (want.contains(cache.positions(LAYER, FIRST_KV + g)[j])) {
                        same++;
                    }
                }
                assertThat(same)
                        .as("KV head %d overlap with the fixture's kept set", g)
                        .isGreaterThanOrEqualTo(n * 95 / 100);
            }
        }
    }

    /** Within the fixture's 5-significant-digit rounding plus float error. */
    private static void close(float actual, JsonNode expected, String what) {
        double e = expected.asDouble();
        assertThat(Math.abs(actual - e)).as(what).isLessThanOrEqualTo(2e-4 * Math.max(1.0, Math.abs(e)));
    }
}

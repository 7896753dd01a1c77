package org.jacap.kv.eviction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jacap.simd.RopeLayout;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Assumptions;

/** One eviction test vector (../shared/fixtures/eviction/c*.json), parsed, plus how to feed it. */
final class EvictionFixture {
    static final ObjectMapper JSON = new ObjectMapper();

    final String id;
    final JsonNode root;
    final int hq;
    final int hkv;
    final int n;
    final int d;
    final RopeLayout layout;
    final double[] invFreq;
    final double[][][] keys;
    final double[][][] values;
    final double[][][] qPre;
    final double[][][] q;

    private EvictionFixture(Path file) throws IOException {
        root = JSON.readTree(file.toFile());
        id = root.get("case_id").asText();
        JsonNode dims = root.get("dims");
        hq = dims.get("Hq").asInt();
        hkv = dims.get("Hkv").asInt();
        n = dims.get("n").asInt();
        d = dims.get("d").asInt();
        layout = switch (root.get("rope").get("layout").asText()) {
            case "normal" -> RopeLayout.NORMAL;
            case "neox" -> RopeLayout.NEOX;
            default ->
                throw new IllegalArgumentException("layout " + root.get("rope").get("layout"));
        };
        invFreq = vector(root.get("rope").get("inv_freq"));
        JsonNode inputs = root.get("inputs");
        if (inputs == null) {
            inputs = JSON.readTree(file.resolveSibling(root.get("inputs_file").asText())
                            .toFile())
                    .get("inputs");
        }
        keys = tensor3(inputs.get("K"));
        values = tensor3(inputs.get("V"));
        qPre = tensor3(inputs.get("Qpre"));
        q = tensor3(inputs.get("Q"));
    }

    /** The fixture folder, or a skipped test with the reason. */
    static Path directory() {
        Path dir = Fixtures.dir().resolve("eviction");
        Assumptions.assumeTrue(Files.isDirectory(dir), "no eviction fixtures at " + dir + ": skipped");
        return dir;
    }

    /** Every case file {@code c*.json} (not the split inputs), sorted by name. */
    static List<Path> caseFiles() {
        return caseFiles(directory());
    }

    static List<Path> caseFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> {
                        String name = p.getFileName().toString();
                        return name.startsWith("c") && name.endsWith(".json") && !name.endsWith(".inputs.json");
                    })
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static EvictionFixture load(Path file) {
        try {
            return new EvictionFixture(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    AttentionShape shape() {
        return new AttentionShape(hq, hkv, d);
    }

    JsonNode params(String policy) {
        return root.get("params").get(policy);
    }

    /** The scorer the fixture's params describe, through the registry's spec parser. */
    KvScorer scorer(String policy) {
        // the fixtures' "jacap" is the paper's form, registered as jacap-paper since jacap became the fused default
        StringBuilder spec = new StringBuilder(policy.equals("jacap") ? "jacap-paper" : policy);
        JsonNode p = params(policy);
        char sep = ':';
        if (p != null) {
            for (Map.Entry<String, JsonNode> e : p.properties()) {
                if (!e.getValue().isNumber() && !e.getValue().isBoolean()) {
                    continue;
                } // prose: "pooling", "generator"
                spec.append(sep)
                        .append(e.getKey())
                        .append('=')
                        .append(e.getValue().asText());
                sep = ',';
            }
        }
        return EvictionPolicies.scorer(spec.toString());
    }

    BudgetAllocator allocator(String name) {
        return switch (name) {
            case "uniform" -> EvictionPolicies.allocator("uniform");
            case "adakv" ->
                EvictionPolicies.allocator(
                        "adakv:alpha=" + params("adakv").get("alpha_safeguard").asText());
            case "pyramidkv" ->
                EvictionPolicies.allocator("pyramidkv:window_size="
                        + params("pyramidkv").get("window_size").asText() + ",beta="
                        + params("pyramidkv").get("beta").asText());
            default -> throw new IllegalArgumentException(name);
        };
    }

    int layer() {
        return params("pyramidkv").get("layer_idx").asInt();
    }

    int layerCount() {
        return params("pyramidkv").get("num_layers").asInt();
    }

    JsonNode budgetEntry(String budgetId) {
        for (JsonNode b : root.get("budgets")) {
            if (b.get("id").asText().equals(budgetId)) {
                return b;
            }
        }
        throw new IllegalArgumentException(budgetId);
    }

    Budget budget(String budgetId) {
        JsonNode b = budgetEntry(budgetId);
        return b.has("compression_ratio")
                ? Budget.ratio(b.get("compression_ratio").asDouble())
                : Budget.kept(b.get("n_kept").asInt());
    }

    /**
     * The snapshot an engine would build, with statistics fed token by token as the forward pass
     * would: pre-RoPE queries, post-RoPE queries, and the causal attention rows.
     */
    LayerSnapshot snapshot(StatisticsSpec spec) {
        AttentionShape shape = shape();
        KvHeadRows[] heads = new KvHeadRows[hkv];
        for (int g = 0; g < hkv; g++) {
            heads[g] = KvHeadRows.ofRows(keys[g], values[g]);
        }
        QueryStatistics stats = new QueryStatistics(shape, spec);
        double[] row = new double[n];
        for (int h = 0; h < hq; h++) {
            int g = shape.kvHeadOf(h);
            for (int t = 0; t < n; t++) {
                stats.observePreRope(h, t, qPre[h][t], 0);
                stats.observePostRope(h, t, q[h][t], 0);
                if (spec.needs(QueryStatistic.ATTENTION_RECEIVED)) {
                    causalAttention(q[h][t], keys[g], t, row);
                    stats.observeAttention(h, row, 0, t + 1);
                }
            }
        }
        AveragedRotation rotation = AveragedRotation.overPositions(
                layout, invFreq, n, root.get("rope").get("n_future").asInt());
        return new LayerSnapshot(layer(), layerCount(), shape, heads, rotation, stats);
    }

    /** Softmax of {@code q·k_j/√d} over keys j = 0..t, into {@code out[0..t]}. */
    void causalAttention(double[] query, double[][] k, int t, double[] out) {
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j <= t; j++) {
            double s = 0;
            for (int a = 0; a < d; a++) {
                s += query[a] * k[j][a];
            }
            out[j] = s / Math.sqrt(d);
            max = Math.max(max, out[j]);
        }
        double sum = 0;
        for (int j = 0; j <= t; j++) {
            out[j] = Math.exp(out[j] - max);
            sum += out[j];
        }
        for (int j = 0; j <= t; j++) {
            out[j] /= sum;
        }
    }

    static double[] vector(JsonNode node) {
        double[] v = new double[node.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = node.get(i).asDouble();
        }
        return v;
    }

    static double[][] matrix(JsonNode node) {
        double[][] m = new double[node.size()][];
        for (int i = 0; i < m.length; i++) {
            m[i] = vector(node.get(i));
        }
        return m;
    }

    /** Rows of a 2-D array, or of a 3-D array flattened per row (cov_rot). */
    static double[][] rows(JsonNode node) {
        double[][] m = new double[node.size()][];
        for (int i = 0; i < m.length; i++) {
            JsonNode r = node.get(i);
            if (r.size() > 0 && r.get(0).isArray()) {
                List<Double> flat = new ArrayList<>();
                for (JsonNode x : r) {
                    for (JsonNode y : x) {
                        flat.add(y.asDouble());
                    }
                }
                m[i] = flat.stream().mapToDouble(Double::doubleValue).toArray();
            } else {
                m[i] = vector(r);
            }
        }
        return m;
    }

    static double[][][] tensor3(JsonNode node) {
        double[][][] t = new double[node.size()][][];
        for (int i = 0; i < t.length; i++) {
            t[i] = matrix(node.get(i));
        }
        return t;
    }

    static int[][] intRows(JsonNode node) {
        int[][] m = new int[node.size()][];
        for (int i = 0; i < m.length; i++) {
            m[i] = new int[node.get(i).size()];
            for (int j = 0; j < m[i].length; j++) {
                m[i][j] = node.get(i).get(j).asInt();
            }
        }
        return m;
    }
}

package org.jacap.kv.eviction;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Not a test: prints scoring wall times on a synthetic layer, and how far each policy's scores are
 * from the fixture vectors. Run by hand:
 * {@code java --add-modules jdk.incubator.vector -cp core/target/classes:core/target/test-classes:<jackson>
 * org.jacap.kv.eviction.EvictionScoringReport [n d Hq Hkv] [fixtureDir]}.
 */
public final class EvictionScoringReport {
    private EvictionScoringReport() {}

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        int d = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int hq = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int hkv = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        timing(n, d, hq, hkv);
        if (args.length > 4) {
            precision(Path.of(args[4]));
        }
    }

    private static void timing(int n, int d, int hq, int hkv) {
        long t0 = System.nanoTime();
        LayerSnapshot s = new SyntheticLayer(1, hq, hkv, n, d).snapshot(SyntheticLayer.everything(4, 64));
        System.out.printf(
                "synthetic layer n=%d d=%d Hq=%d Hkv=%d (statistics fed in %.0f ms)%n",
                n, d, hq, hkv, (System.nanoTime() - t0) / 1e6);
        List<KvScorer> scorers = List.of(
                new RandomScorer(0),
                new StreamingScorer(4),
                new KeyNormScorer(),
                KeyDiffScorer.defaults(),
                new SnapKvScorer(64, 5),
                new TovaScorer(),
                new ObservedAttentionScorer(),
                ExpectedAttentionScorer.defaults(),
                CapKvScorer.defaults(),
                JacapScorer.defaults(),
                JacapScorer.literal(),
                EvictionPolicies.scorer("greedy:weights=jacap,max_picks=512"));
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        System.out.println("| policy | median wall ms | min wall ms | median thread-CPU ms | uniform select ms |");
        System.out.println("|---|---|---|---|---|");
        for (KvScorer scorer : scorers) {
            for (int i = 0; i < (scorer instanceof GreedyLogDetScorer ? 3 : 25); i++) {
                scorer.score(s);
            }
            long[] t = new long[9];
            long[] c = new long[9];
            for (int i = 0; i < t.length; i++) {
                long a = System.nanoTime();
                long ca = cpu.getCurrentThreadCpuTime();
                scorer.score(s);
                c[i] = cpu.getCurrentThreadCpuTime() - ca;
                t[i] = System.nanoTime() - a;
            }
            Arrays.sort(t);
            Arrays.sort(c);
            double[][] scores = scorer.score(s);
            long a = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                new UniformAllocator().select(scores, Budget.ratio(0.75), 0, 1);
            }
            double select = (System.nanoTime() - a) / 5e6;
            System.out.printf(
                    "| %s | %.2f | %.2f | %.2f | %.2f |%n", scorer.name(), t[4] / 1e6, t[0] / 1e6, c[4] / 1e6, select);
        }
    }

    private static void precision(Path dir) {
        System.out.println("| case | policy | max rel. score error | max abs/rowmax |");
        System.out.println("|---|---|---|---|");
        for (Path file : EvictionFixture.caseFiles(dir.resolve("eviction"))) {
            EvictionFixture f = EvictionFixture.load(file);
            for (Map.Entry<String, JsonNode> e : f.root.get("expected").properties()) {
                if (!e.getValue().hasNonNull("scores")) {
                    continue;
                }
                KvScorer scorer = f.scorer(e.getKey());
                double[][] got = scorer.score(f.snapshot(scorer.statistics()));
                double[][] want = EvictionFixture.matrix(e.getValue().get("scores"));
                double rel = 0;
                double abs = 0;
                for (int g = 0; g < want.length; g++) {
                    double scale = Arrays.stream(want[g]).map(Math::abs).max().orElse(1);
                    for (int i = 0; i < want[g].length; i++) {
                        double diff = Math.abs(got[g][i] - want[g][i]);
                        if (want[g][i] != 0) {
                            rel = Math.max(rel, diff / Math.abs(want[g][i]));
                        }
                        abs = Math.max(abs, diff / scale);
                    }
                }
                System.out.printf("| %s | %s | %.1e | %.1e |%n", f.id, e.getKey(), rel, abs);
            }
        }
    }
}

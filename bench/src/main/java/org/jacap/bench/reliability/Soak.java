package org.jacap.bench.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jacap.bench.throughput.ProcessMemory;
import org.jacap.engine.Engine;
import org.jacap.engine.EngineOptions;
import org.jacap.engine.EvictionMode;
import org.jacap.engine.FinishReason;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.Session;
import org.jacap.engine.SessionOptions;
import org.jacap.kv.eviction.EvictionSettings;
import org.jacap.sampling.SamplerConfig;

/**
 * The soak test (issue 17), two parts on one engine:
 * <ol>
 *   <li>one session generates {@code tokens} tokens (10^5 by default) under a KV budget, starting
 *       a new generation after each end of text, with the resident set size sampled every 1,000
 *       tokens: after the warm-up (the first tenth) it must stay within 5% of its value there;</li>
 *   <li>{@code sessions} sessions (8) on their own threads each run {@code turns} turns (60: one a
 *       minute for an hour of use) of up to {@code turnTokens} tokens (128); then two of them are
 *       replayed alone, and every replayed turn must give the same ids as under concurrency.</li>
 * </ol>
 *
 * <pre>
 * java --add-modules jdk.incubator.vector -Xmx1g -cp CLASSPATH org.jacap.bench.reliability.Soak \
 *     [--model FILE] [--tokens N] [--budget N] [--policy NAME] [--sessions N] [--turns N]
 *     [--turn-tokens N] [--threads N] [--seed N]
 * </pre>
 */
public final class Soak {
    /** What to run. */
    public record Settings(
            Path model,
            int tokens,
            int budget,
            String policy,
            int sessions,
            int turns,
            int turnTokens,
            int threads,
            long seed) {}

    /** The figures: RSS samples (bytes) of part 1, and part 2's totals and replay mismatches. */
    public record Report(
            int streamTokens,
            double streamSeconds,
            long[] rssSamples,
            long warmRss,
            long maxRssAfterWarmUp,
            int concurrentTokens,
            double concurrentSeconds,
            int replayedTurns,
            List<String> mismatches) {
        /** Largest RSS after warm-up relative to the warm-up value, minus one. */
        public double rssGrowth() {
            return warmRss == 0 ? 0 : (double) maxRssAfterWarmUp / warmRss - 1;
        }

        public boolean rssFlat() {
            return rssGrowth() <= 0.05;
        }
    }

    private static final int SAMPLE_EVERY = 1000;
    private static final String[] PROMPTS = {
        "Once upon a time",
        "Lily and Tom went to the park",
        "The little dog",
        "One day, a girl named Sue",
        "The sun was"
    };

    private Soak() {}

    public static void main(String[] args) throws Exception {
        Report r = run(parse(args), System.out);
        System.exit(r.rssFlat() && r.mismatches().isEmpty() ? 0 : 1);
    }

    public static Report run(Settings s, PrintStream out) throws IOException, InterruptedException {
        try (Engine engine = Engine.load(s.model(), EngineOptions.defaults().withThreads(s.threads()))) {
            EvictionMode policy = EvictionMode.evict(EvictionSettings.budget(
                    org.jacap.kv.eviction.EvictionPolicies.policy(s.policy(), "uniform"), s.budget()));
            SessionOptions options = SessionOptions.defaults().withEviction(policy);
            out.printf(
                    Locale.ROOT,
                    "soak: %s, %d threads, KV %s budget %d; part 1: %d tokens in one session%n",
                    s.model().getFileName(),
                    s.threads(),
                    s.policy(),
                    s.budget(),
                    s.tokens());

            // Part 1: one long stream under the budget.
            List<Long> rss = new ArrayList<>();
            long start = System.nanoTime();
            int produced = 0;
            int generations = 0;
            try (Session session = engine.newSession(options)) {
                while (produced < s.tokens()) {
                    String prompt = generations == 0 ? PROMPTS[0] : "\n" + PROMPTS[generations % PROMPTS.length];
                    int[] count = {produced};
                    GenerationResult g = session.generate(
                            prompt,
                            sampled(s.seed() + generations).withMaxTokens(s.tokens() - produced),
                            (id, text) -> {
                                if (++count[0] % SAMPLE_EVERY == 0) {
                                    rss.add(ProcessMemory.currentRssBytes().orElse(0));
                                }
                                return true;
                            });
                    produced += g.generatedTokens();
                    generations++;
                }
            }
            double streamSeconds = (System.nanoTime() - start) / 1e9;
            long[] samples = rss.stream().mapToLong(Long::longValue).toArray();
            int warm = Math.max(0, samples.length / 10 - 1);
            long warmRss = samples.length == 0 ? 0 : samples[warm];
            long maxAfter = Arrays.stream(samples, warm, samples.length).max().orElse(0);
            out.printf(
                    Locale.ROOT,
                    "part 1: %d tokens in %d generations, %.1f s (%.0f tokens/s); RSS every %d tokens: first %s,"
                            + " after warm-up (%d tokens) %s, max after %s (%+.2f%%), last %s%n",
                    produced,
                    generations,
                    streamSeconds,
                    produced / streamSeconds,
                    SAMPLE_EVERY,
                    mib(samples.length == 0 ? 0 : samples[0]),
                    (warm + 1) * SAMPLE_EVERY,
                    mib(warmRss),
                    mib(maxAfter),
                    warmRss == 0 ? 0 : 100.0 * ((double) maxAfter / warmRss - 1),
                    mib(samples.length == 0 ? 0 : samples[samples.length - 1]));

            // Part 2: concurrent sessions, then a replay of two of them alone.
            long t0 = System.nanoTime();
            List<List<int[]>> concurrent = concurrently(engine, options, s);
            double concurrentSeconds = (System.nanoTime() - t0) / 1e9;
            int concurrentTokens = concurrent.stream()
                    .flatMap(List::stream)
                    .mapToInt(ids -> ids.length)
                    .sum();
            List<String> mismatches = new ArrayList<>();
            int replayed = 0;
            for (int sid : new int[] {0, s.sessions() - 1}) {
                List<int[]> alone = turns(engine, options, s, sid, Math.min(s.turns(), 5));
                for (int t = 0; t < alone.size(); t++) {
                    replayed++;
                    if (!Arrays.equals(alone.get(t), concurrent.get(sid).get(t))) {
                        mismatches.add("session " + sid + " turn " + t);
                    }
                }
            }
            out.printf(
                    Locale.ROOT,
                    "part 2: %d sessions x %d turns (<= %d tokens each): %d tokens in %.1f s (%.0f tokens/s);"
                            + " %d turns replayed alone, %d differ; RSS now %s%n",
                    s.sessions(),
                    s.turns(),
                    s.turnTokens(),
                    concurrentTokens,
                    concurrentSeconds,
                    concurrentTokens / concurrentSeconds,
                    replayed,
                    mismatches.size(),
                    mib(ProcessMemory.currentRssBytes().orElse(0)));
            return new Report(
                    produced,
                    streamSeconds,
                    samples,
                    warmRss,
                    maxAfter,
                    concurrentTokens,
                    concurrentSeconds,
                    replayed,
                    mismatches);
        }
    }

    private static List<List<int[]>> concurrently(Engine engine, SessionOptions options, Settings s)
            throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(s.sessions());
        try {
            List<Future<List<int[]>>> runs = new ArrayList<>();
            for (int sid = 0; sid < s.sessions(); sid++) {
                int id = sid;
                runs.add(pool.submit(() -> turns(engine, options, s, id, s.turns())));
            }
            List<List<int[]>> out = new ArrayList<>();
            for (Future<List<int[]>> f : runs) {
                out.add(f.get());
            }
            return out;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a concurrent session failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /** One session's turns: each continues the conversation with a new prompt and its own seed. */
    private static List<int[]> turns(Engine engine, SessionOptions options, Settings s, int sid, int turns) {
        List<int[]> out = new ArrayList<>();
        try (Session session = engine.newSession(options)) {
            for (int t = 0; t < turns; t++) {
                String prompt = (t == 0 ? "" : "\n") + PROMPTS[(sid + t) % PROMPTS.length];
                GenerationResult g = session.generate(
                        prompt, sampled(s.seed() + 1000L * sid + t).withMaxTokens(s.turnTokens()), (id, text) -> true);
                if (g.finishReason() == FinishReason.CANCELLED) {
                    throw new IllegalStateException("session " + sid + " turn " + t + " was cancelled");
                }
                out.add(g.ids());
            }
        }
        return out;
    }

    private static GenerationOptions sampled(long seed) {
        return GenerationOptions.defaults().withSampler(SamplerConfig.defaults().withSeed(seed));
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    private static Settings parse(String[] args) {
        Path model = Path.of(System.getProperty("jacap.fixtures", "../shared/fixtures"), "models", "stories260K.gguf");
        int tokens = 100_000;
        int budget = 256;
        String policy = "streaming";
        int sessions = 8;
        int turns = 60;
        int turnTokens = 128;
        int threads = Runtime.getRuntime().availableProcessors();
        long seed = 17;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--model" -> model = Path.of(v);
                case "--tokens" -> tokens = Integer.parseInt(v);
                case "--budget" -> budget = Integer.parseInt(v);
                case "--policy" -> policy = v;
                case "--sessions" -> sessions = Integer.parseInt(v);
                case "--turns" -> turns = Integer.parseInt(v);
                case "--turn-tokens" -> turnTokens = Integer.parseInt(v);
                case "--threads" -> threads = Integer.parseInt(v);
                case "--seed" -> seed = Long.parseLong(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException("option " + args[args.length - 1] + " needs a value");
        }
        return new Settings(model, tokens, budget, policy, sessions, turns, turnTokens, threads, seed);
    }
}

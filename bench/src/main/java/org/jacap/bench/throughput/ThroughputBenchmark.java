package org.jacap.bench.throughput;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jacap.bench.progress.Progress;
import org.jacap.gguf.GgufFile;
import org.jacap.kv.KvCacheTypes;
import org.jacap.kv.eviction.Budget;
import org.jacap.kv.eviction.CompressionResult;
import org.jacap.kv.eviction.EvictionObserver;
import org.jacap.kv.eviction.EvictionPolicies;
import org.jacap.kv.eviction.EvictionPolicy;
import org.jacap.kv.eviction.KvCompressor;
import org.jacap.model.InferenceState;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.Precision;

/**
 * Measures prefill and decode throughput the way llama-bench does. A prompt test ("pp512") is one
 * prefill of N tokens into a fresh state (BOS, then random tokens); a generation test ("tg128") is
 * N single-token decodes into a fresh state, starting from BOS and feeding random tokens. At a
 * depth ("tg128 @ d4096") the state holds that many random tokens first: prefilled once, untimed,
 * and copied for each repetition. Each
 * repetition gets a fresh state, created outside the timed region; untimed warm-up repetitions
 * run first (the JIT needs them more than llama.cpp does): a fixed number, or by default until
 * the timings settle (see {@link #warmedUp}).
 *
 * <p>With eviction policies, every prompt test is measured once more per policy: the prefill runs
 * with the policy's statistics gathered (timed, so their cost shows), then the cache is compressed
 * once to the ratio and the compression's wall time recorded.
 */
public final class ThroughputBenchmark {
    public static final String BACKEND = "Java CPU";
    /** {@link Settings#warmups()} value meaning: repeat the test untimed until its timing settles. */
    public static final int AUTO_WARMUP = -1;

    private static final long SETTLE_MIN_NANOS = 2_000_000_000L;
    private static final long SETTLE_MAX_NANOS = 15_000_000_000L;
    private static final long LONG_REPETITION_NANOS = 5_000_000_000L;
    private static final double SETTLED = 0.03;

    /**
     * @param warmups    untimed repetitions of each test before the timed ones, or {@link #AUTO_WARMUP}
     * @param seed       seeds the random token ids
     * @param kvPolicies eviction scorer specs to time after each prompt test (may be empty)
     * @param kvRatio    compression ratio of those measurements
     * @param cacheTypes how the KV cache stores keys and values
     */
    public record Settings(
            List<BenchCase> tests,
            List<Integer> threads,
            int repetitions,
            int warmups,
            Precision precision,
            long seed,
            List<String> kvPolicies,
            double kvRatio,
            KvCacheTypes cacheTypes) {
        public Settings {
            java.util.Objects.requireNonNull(cacheTypes, "cacheTypes");
            tests = List.copyOf(tests);
            threads = List.copyOf(threads);
            kvPolicies = List.copyOf(kvPolicies);
            if (tests.isEmpty()) {
                throw new IllegalArgumentException("no tests: give -p and/or -n a positive length");
            }
            if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1)) {
                throw new IllegalArgumentException("thread counts must be at least 1");
            }
            if (repetitions < 1) {
                throw new IllegalArgumentException("repetitions must be at least 1, got " + repetitions);
            }
            if (warmups < 0 && warmups != AUTO_WARMUP) {
                throw new IllegalArgumentException("warm-up repetitions must be >= 0, got " + warmups);
            }
            if (!(kvRatio >= 0 && kvRatio < 1)) {
                throw new IllegalArgumentException("--kv-ratio must be in [0, 1), got " + kvRatio);
            }
            if (!kvPolicies.isEmpty() && tests.stream().anyMatch(t -> t.depth() > 0)) {
                throw new IllegalArgumentException(
                        "--kv-policy times eviction after a prefill into an empty context; drop -d");
            }
            if (!kvPolicies.isEmpty() && tests.stream().noneMatch(t -> t.promptTokens() > 0)) {
                throw new IllegalArgumentException(
                        "--kv-policy times eviction after a prefill: give -p a positive length");
            }
        }

        public Settings(
                List<BenchCase> tests,
                List<Integer> threads,
                int repetitions,
                int warmups,
                Precision precision,
                long seed) {
            this(tests, threads, repetitions, warmups, precision, seed, List.of(), 0.5, KvCacheTypes.DEFAULT);
        }
    }

    private ThroughputBenchmark() {}

    /** Runs every test at every thread count; {@code progress} hears about each repetition. */
    public static BenchReport run(Path modelPath, Settings settings, Progress progress) throws IOException {
        List<EvictionPolicy> policies = new ArrayList<>();
        for (String spec : settings.kvPolicies()) {
            EvictionPolicy p = EvictionPolicies.policy(spec, "uniform");
            if (!p.evicts()) {
                throw new IllegalArgumentException(
                        "--kv-policy '" + spec + "' evicts nothing; name an eviction policy");
            }
            policies.add(p);
        }
        BenchedModel summary;
        try (GgufFile file = GgufFile.open(modelPath)) {
            summary = BenchedModel.of(file, modelPath);
        }
        List<BenchResult> results = new ArrayList<>();
        // An automatic warm-up counts as one unit of progress, however many repetitions it takes.
        int perTest = Math.max(settings.warmups(), 1) + settings.repetitions();
        long promptTests =
                settings.tests().stream().filter(t -> t.promptTokens() > 0).count();
        long total =
                (long) settings.threads().size() * (settings.tests().size() + promptTests * policies.size()) * perTest;
        long[] done = {0};
        for (int threads : settings.threads()) {
            long start = System.nanoTime();
            try (Model model = Model.load(modelPath, new LoadOptions(threads, settings.precision(), null))) {
                long loadNanos = System.nanoTime() - start;
                for (BenchCase test : settings.tests()) {
                    checkContext(model, test);
                    results.add(
                            measure(model, summary, threads, test, null, settings, loadNanos, done, total, progress));
                }
                for (BenchCase test : settings.tests()) {
                    if (test.promptTokens() == 0) {
                        continue;
                    }
                    for (int i = 0; i < policies.size(); i++) {
                        results.add(measure(
                                model,
                                summary,
                                threads,
                                BenchCase.prompt(test.promptTokens()),
                                policies.get(i),
                                settings,
                                loadNanos,
                                done,
                                total,
                                progress));
                    }
                }
            }
        }
        return new BenchReport(results, ProcessMemory.peakRssBytes());
    }

    private static void checkContext(Model model, BenchCase test) {
        int max = model.config().contextLength();
        if (max > 0 && test.contextLength() > max) {
            throw new IllegalArgumentException(
                    test.name() + " needs " + test.contextLength() + " positions but the model's context is " + max);
        }
    }

    private static BenchResult measure(
            Model model,
            BenchedModel summary,
            int threads,
            BenchCase test,
            EvictionPolicy policy,
            Settings settings,
            long loadNanos,
            long[] done,
            long total,
            Progress progress) {
        String label =
                test.name() + (policy == null ? "" : " " + policy.scorer().spec()) + " t=" + threads;
        SplittableRandom random = new SplittableRandom(settings.seed());
        long[] samples = new long[settings.repetitions()];
        long[] scoring = new long[settings.repetitions()];
        long kvBytes = 0;
        Budget budget = Budget.ratio(settings.kvRatio());
        InferenceState context = null;
        if (test.depth() > 0) {
            progress.update(done[0], total, label + " prefilling the depth");
            context = depthState(model, test, settings);
        }
        boolean auto = settings.warmups() == AUTO_WARMUP;
        long warmupStart = System.nanoTime();
        long previous = 0;
        for (int w = 0; auto || w < settings.warmups(); w++) {
            progress.update(done[0], total, label + " warm-up" + (w > 0 ? " " + (w + 1) : ""));
            long nanos = repetition(model, test, policy, budget, settings.cacheTypes(), context, random)[0];
            if (!auto) {
                done[0]++;
            } else if (warmedUp(nanos, previous, System.nanoTime() - warmupStart)) {
                done[0]++;
                break;
            }
            previous = nanos;
        }
        for (int rep = 0; rep < settings.repetitions(); rep++) {
            progress.update(done[0], total, label + " rep " + (rep + 1) + "/" + settings.repetitions());
            long[] timing = repetition(model, test, policy, budget, settings.cacheTypes(), context, random);
            samples[rep] = timing[0];
            scoring[rep] = timing[1];
            kvBytes = timing[2];
            done[0]++;
        }
        progress.update(done[0], total, label + " done");
        EvictionTiming eviction = policy == null
                ? null
                : new EvictionTiming(
                        policy.scorer().spec(), settings.kvRatio(), budget.keptCount(test.promptTokens()), scoring);
        return new BenchResult(summary, BACKEND, threads, test, samples, loadNanos, kvBytes, eviction);
    }

    /**
     * The automatic warm-up ends when one repetition alone took 5 s (the JIT compiled during it),
     * when two consecutive repetitions agree within 3% after at least 2 s, or after 15 s.
     */
    static boolean warmedUp(long last, long previous, long elapsed) {
        if (last >= LONG_REPETITION_NANOS || elapsed >= SETTLE_MAX_NANOS) {
            return true;
        }
        return elapsed >= SETTLE_MIN_NANOS && previous > 0 && Math.abs(last - previous) <= SETTLED * previous;
    }

    /**
     * The test's context of {@code test.depth()} tokens (BOS, then random ids from a generator of
     * its own, so the same at every thread count), prefilled once; the repetitions run on copies.
     */
    private static InferenceState depthState(Model model, BenchCase test, Settings settings) {
        InferenceState state = model.newState(test.contextLength(), settings.cacheTypes());
        int[] context = randomTokens(model, test.depth(), true, new SplittableRandom(settings.seed() ^ test.depth()));
        model.forward(state, context, 0, context.length, false);
        return state;
    }

    /**
     * One repetition in a fresh state (or a copy of {@code context}, the depth's): {test nanos,
     * compression nanos, KV-cache bytes}.
     */
    private static long[] repetition(
            Model model,
            BenchCase test,
            EvictionPolicy policy,
            Budget budget,
            KvCacheTypes types,
            InferenceState context,
            SplittableRandom random) {
        InferenceState state = context != null ? context.copy() : model.newState(test.contextLength(), types);
        EvictionObserver observer =
                policy == null || policy.statistics().needs().isEmpty()
                        ? null
                        : KvCompressor.observe(model, state, policy.statistics());
        long nanos = runOnce(model, state, test, random);
        long scoringNanos = 0;
        if (policy != null) {
            state.setObserver(null);
            CompressionResult r = KvCompressor.compress(model, state, observer, policy, budget);
            scoringNanos = r.totalNanos();
        }
        return new long[] {nanos, scoringNanos, state.kvCache().bytesAllocated()};
    }

    /** One timed repetition: the prefill (if any), then the single-token decodes (if any). */
    static long runOnce(Model model, InferenceState state, BenchCase test, SplittableRandom random) {
        boolean fresh = state.position() == 0; // BOS starts a fresh context, never one at a depth
        int[] prompt = randomTokens(model, test.promptTokens(), fresh, random);
        int[] decode = randomTokens(model, test.genTokens(), fresh && prompt.length == 0, random);
        long start = System.nanoTime();
        if (prompt.length > 0) {
            model.forward(state, prompt, 0, prompt.length, false);
        }
        for (int i = 0; i < decode.length; i++) {
            model.forward(state, decode, i, 1, false);
        }
        return System.nanoTime() - start;
    }

    /** {@code n} random token ids, the first of them BOS when {@code bosFirst} and the model adds one. */
    private static int[] randomTokens(Model model, int n, boolean bosFirst, SplittableRandom random) {
        int vocab = model.config().vocabSize();
        int bos = bosId(model);
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i == 0 && bosFirst && bos >= 0 ? bos : random.nextInt(vocab);
        }
        return ids;
    }

    /** The BOS id when the vocabulary adds one by default (llama-bench's rule), else −1. */
    private static int bosId(Model model) {
        var tokenizer = model.tokenizer();
        int bos = tokenizer.bosId();
        return tokenizer.addBosByDefault() && bos >= 0 && bos < model.config().vocabSize() ? bos : -1;
    }
}

package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jacap.bench.progress.ProgressBar;
import org.jacap.bench.report.Units;
import org.jacap.bench.synthetic.SyntheticModel;
import org.jacap.bench.synthetic.SyntheticPlan;
import org.jacap.bench.synthetic.SyntheticShape;
import org.jacap.bench.synthetic.SyntheticType;
import org.jacap.bench.throughput.BenchCase;
import org.jacap.bench.throughput.BenchReport;
import org.jacap.bench.throughput.LlamaBench;
import org.jacap.bench.throughput.ReportFormat;
import org.jacap.bench.throughput.ThroughputBenchmark;
import org.jacap.bench.throughput.VsBenchmark;
import org.jacap.bench.throughput.VsReport;
import org.jacap.kv.eviction.EvictionPolicies;
import org.jacap.simd.VectorSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code jacap bench}: prefill and decode throughput, printed like llama.cpp's llama-bench. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Measures prompt processing (ppN: one prefill of N tokens) and text generation (tgN: N single-token "
                    + "decodes) in tokens/s, mean ± stddev over repetitions, as llama-bench does.",
            "Without -m it runs on a synthetic Llama model with seeded random weights, generated once into the cache."
        })
final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = {"-m", "--model"},
            paramLabel = "MODEL",
            description = "GGUF model to measure (default: a synthetic model).")
    Path model;

    @Option(
            names = "--synthetic",
            paramLabel = "SHAPE",
            description =
                    "Synthetic model shape without -m: tiny (4M params) or 1b (Llama-3.2-1B shapes) (default: tiny).")
    String shape;

    @Option(
            names = "--type",
            paramLabel = "TYPE",
            description = "Synthetic weight type: q8_0, q4_0, q4_k (Q4_K_M) or f16 (default: q4_0).")
    String type;

    @Option(
            names = {"-p", "--n-prompt"},
            paramLabel = "N[,N...]",
            split = ",",
            description = "Prompt lengths of the pp tests; 0 for none (default: ${DEFAULT-VALUE}).")
    List<Integer> prompts = List.of(512);

    @Option(
            names = {"-n", "--n-gen"},
            paramLabel = "N[,N...]",
            split = ",",
            description = "Generation lengths of the tg tests; 0 for none (default: ${DEFAULT-VALUE}).")
    List<Integer> gens = List.of(128);

    @Option(
            names = {"-d", "--n-depth"},
            paramLabel = "N[,N...]",
            split = ",",
            description = "Run every test after a context of N tokens, prefilled untimed, as llama-bench's -d "
                    + "(\"tg128 @ d4096\": decoding deep into a conversation) (default: ${DEFAULT-VALUE}).")
    List<Integer> depths = List.of(0);

    @Option(
            names = {"-r", "--repetitions"},
            paramLabel = "N",
            description = "Timed repetitions per test (default: ${DEFAULT-VALUE}).")
    int repetitions = 3;

    @Option(
            names = "--warmup",
            paramLabel = "N",
            description = "Untimed repetitions before the timed ones; the JIT compiles during these "
                    + "(default: until two agree within 3%% after 2 s, at most 15 s; one 5 s repetition is enough).")
    Integer warmups;

    @Option(
            names = {"-t", "--threads"},
            paramLabel = "N[,N...]",
            split = ",",
            description = "Thread counts to measure (default: every processor, ${DEFAULT-VALUE} here).")
    List<Integer> threads = List.of(Runtime.getRuntime().availableProcessors());

    @Option(
            names = {"-o", "--output"},
            paramLabel = "md|csv|json",
            description = "Output format (default: ${DEFAULT-VALUE}).")
    String output = "md";

    @Option(
            names = "--precision",
            paramLabel = "native|f32",
            description =
                    "native: activations quantized like llama.cpp's CPU path; f32: float activations (default: ${DEFAULT-VALUE}).")
    String precision = "native";

    @Option(
            names = "--kv-policy",
            paramLabel = "P[,P...]",
            description = "Also time these eviction policies after each pp test: the prefill with the policy's "
                    + "statistics gathered, then one compression to --kv-ratio (e.g. capkv,snapkv,jacap).")
    String kvPolicies;

    @Option(
            names = "--kv-ratio",
            paramLabel = "R",
            description = "Compression ratio of the --kv-policy measurements (default: ${DEFAULT-VALUE}).")
    double kvRatio = 0.5;

    @Mixin
    CacheTypeOptions cacheTypes;

    @Option(
            names = "--vs",
            paramLabel = "LLAMA_BENCH",
            description = "Compare with llama.cpp: run the llama-bench at this path and Jacap alternately on the same "
                    + "file, threads, lengths and repetitions, and print both with the ratio Jacap / llama.cpp.")
    Path vs;

    @Option(
            names = "--vs-rounds",
            paramLabel = "N",
            description = "With --vs: llama-bench-then-Jacap rounds per test, averaged (default: ${DEFAULT-VALUE}).")
    int vsRounds = 2;

    @Option(
            names = "--seed",
            paramLabel = "N",
            description = "Seed of the synthetic weights and of the random token ids (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(
            names = "--cache-dir",
            paramLabel = "DIR",
            description = "Where synthetic models are cached (default: $XDG_CACHE_HOME/jacap or ~/.cache/jacap).")
    Path cacheDir;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ReportFormat format = parseFormat();
        if (model != null && (shape != null || type != null)) {
            SamplingOptions.check(
                    spec,
                    false,
                    "--synthetic and --type describe the generated model; they cannot be combined with -m");
        }
        if (kvPolicies == null && spec.commandLine().getParseResult().hasMatchedOption("--kv-ratio")) {
            SamplingOptions.check(spec, false, "--kv-ratio needs --kv-policy");
        }
        SamplingOptions.check(spec, warmups == null || warmups >= 0, "--warmup must be >= 0 (got " + warmups + ")");
        SamplingOptions.check(spec, repetitions >= 1, "-r must be >= 1 (got " + repetitions + ")");
        SamplingOptions.check(spec, threads.stream().allMatch(t -> t >= 1), "-t thread counts must be >= 1");
        ThroughputBenchmark.Settings settings = new ThroughputBenchmark.Settings(
                tests(),
                threads,
                repetitions,
                warmups == null ? ThroughputBenchmark.AUTO_WARMUP : warmups,
                ModelOptions.parsePrecision(spec, precision),
                seed,
                kvPolicies == null ? List.of() : EvictionPolicies.splitSpecs(kvPolicies),
                kvRatio,
                cacheTypes.types(spec));
        LlamaBench llama = null;
        if (vs != null) {
            SamplingOptions.check(spec, vsRounds >= 1, "--vs-rounds must be >= 1 (got " + vsRounds + ")");
            SamplingOptions.check(spec, format == ReportFormat.MD, "--vs prints a Markdown table; drop -o " + output);
            SamplingOptions.check(spec, kvPolicies == null, "--vs compares plain pp/tg tests; drop --kv-policy");
            llama = new LlamaBench(vs); // one-line IllegalArgumentException when it is not an executable
        } else if (spec.commandLine().getParseResult().hasMatchedOption("--vs-rounds")) {
            SamplingOptions.check(spec, false, "--vs-rounds needs --vs");
        }
        VectorSupport.warning().ifPresent(err::println);
        Path path = model != null ? checkedModel() : synthetic(err);
        if (llama != null) {
            ProgressBar bar = new ProgressBar(err, "bench --vs", Terminal.interactive());
            VsReport report;
            try {
                report = VsBenchmark.run(path, settings, llama, vsRounds, bar);
            } finally {
                bar.finish();
            }
            out.print(report.markdown());
            out.flush();
            return 0;
        }
        ProgressBar bar = new ProgressBar(err, "bench", Terminal.interactive());
        BenchReport report;
        try {
            report = ThroughputBenchmark.run(path, settings, bar);
        } finally {
            bar.finish();
        }
        out.print(report.render(format));
        out.flush();
        return 0;
    }

    private ReportFormat parseFormat() {
        try {
            return ReportFormat.parse(output);
        } catch (IllegalArgumentException e) {
            SamplingOptions.check(spec, false, e.getMessage());
            return ReportFormat.MD;
        }
    }

    private List<BenchCase> tests() {
        List<BenchCase> tests = new ArrayList<>();
        for (int n : prompts) {
            SamplingOptions.check(spec, n >= 0, "-p lengths must be >= 0 (got " + n + ")");
            if (n > 0) {
                tests.add(BenchCase.prompt(n));
            }
        }
        for (int n : gens) {
            SamplingOptions.check(spec, n >= 0, "-n lengths must be >= 0 (got " + n + ")");
            if (n > 0) {
                tests.add(BenchCase.generation(n));
            }
        }
        SamplingOptions.check(spec, !tests.isEmpty(), "nothing to measure: -p and -n are both 0");
        List<BenchCase> deep = new ArrayList<>();
        for (int d : depths) {
            SamplingOptions.check(spec, d >= 0, "-d depths must be >= 0 (got " + d + ")");
            for (BenchCase t : tests) {
                deep.add(t.atDepth(d));
            }
        }
        return deep;
    }

    private Path checkedModel() throws IOException {
        if (!Files.exists(model)) {
            throw new NoSuchFileException(model.toString());
        }
        return model;
    }

    private Path synthetic(PrintWriter err) throws IOException {
        SyntheticPlan plan = SyntheticPlan.of(
                SyntheticShape.parse(shape == null ? "tiny" : shape),
                SyntheticType.parse(type == null ? "q4_0" : type),
                seed);
        Path dir = cacheDir != null ? cacheDir : CacheDirectory.defaultPath();
        if (SyntheticModel.isCached(plan, dir)) {
            return dir.resolve(plan.fileName());
        }
        err.println("generating " + plan.fileName() + " (" + Units.bytes(plan.tensorBytes()) + " of weights, seed "
                + seed + ") into " + dir + " ...");
        err.flush();
        long start = System.nanoTime();
        ProgressBar bar = new ProgressBar(err, "generating", Terminal.interactive());
        Path path;
        try {
            path = SyntheticModel.ensure(plan, dir, Runtime.getRuntime().availableProcessors(), bar);
        } finally {
            bar.finish();
        }
        err.println("generated " + path + " in " + Units.fixed((System.nanoTime() - start) / 1e9, 1) + " s");
        err.flush();
        return path;
    }
}

package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import org.jacap.JacapException;
import org.jacap.bench.eval.Documents;
import org.jacap.bench.eval.EvalPolicy;
import org.jacap.bench.eval.EvalReport;
import org.jacap.bench.eval.FidelityEvaluation;
import org.jacap.bench.eval.Protection;
import org.jacap.bench.eval.TokenWindows;
import org.jacap.bench.progress.ProgressBar;
import org.jacap.kv.KvCacheTypes;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.VectorSupport;
import org.jacap.tokenizer.Tokenizer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code jacap eval}: how faithfully each eviction policy keeps the model's predictions (eviction-spec §6). */
@Command(
        name = "eval",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Eviction fidelity. Per document: prefill the context once, compress a copy per policy and ratio (the same "
                    + "budget for every layer and KV head), teacher-force the continuation, compare with the full cache:",
            "mean and p90 KL(full ‖ compressed) in nats/token, top-1 agreement and ΔNLL, with paired bootstrap 95%% "
                    + "intervals over documents; and a retrieval probe (a random span planted in the context, recalled "
                    + "after compression from its first 8 tokens)."
        })
final class EvalCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = {"-m", "--model"},
            required = true,
            paramLabel = "MODEL",
            description = "GGUF model (e.g. stories260K.gguf).")
    Path model;

    @Option(
            names = "--docs",
            paramLabel = "FILE|DIR",
            description = "UTF-8 documents: a directory (one per file) or a file (split at <|endoftext|> lines) "
                    + "(default: seeded synthetic TinyStories-like stories).")
    Path docs;

    @Option(
            names = {"-N", "--documents"},
            paramLabel = "N",
            description = "Documents (windows) to evaluate (default: ${DEFAULT-VALUE}).")
    int documents = 100;

    @Option(
            names = {"-c", "--context"},
            paramLabel = "N",
            description = "Context tokens prefilled and compressed (default: ${DEFAULT-VALUE}).")
    int context = 384;

    @Option(
            names = "--continuation",
            paramLabel = "N",
            description = "Continuation tokens teacher-forced after compression (default: ${DEFAULT-VALUE}).")
    int continuation = 64;

    @Option(
            names = "--ratios",
            paramLabel = "R[,R...]",
            split = ",",
            description = "Compression ratios: fraction of entries removed (default: 0.5,0.75,0.875,0.9).")
    List<Double> ratios = List.of(0.5, 0.75, 0.875, 0.9);

    @Option(
            names = "--policies",
            paramLabel = "P[,P...]",
            description =
                    "Policies: all (every eviction policy and the future-attention oracle), names, or specs such as "
                            + "snapkv:window=32 (default: ${DEFAULT-VALUE}).")
    String policies = "all";

    @Option(
            names = "--protect",
            paramLabel = "N_SINK,N_RECENT",
            description =
                    "Give every policy the same protection: the first N_SINK and last N_RECENT context tokens stay "
                            + "(inside the budget) (default: each policy's own).")
    String protect;

    @Option(
            names = "--probe-depths",
            paramLabel = "D[,D...]",
            split = ",",
            description =
                    "Depths of the retrieval probe's span, as fractions of the context, e.g. 0.1,0.5,0.9 (default: 0.5).")
    List<Double> probeDepths = List.of(0.5);

    @Option(names = "--no-probe", description = "Skip the retrieval probe.")
    boolean noProbe;

    @Option(
            names = "--bootstrap",
            paramLabel = "B",
            description = "Bootstrap resamples for the 95%% intervals (default: ${DEFAULT-VALUE}).")
    int bootstrap = 1000;

    @Option(
            names = "--seed",
            paramLabel = "N",
            description = "Seed of the synthetic documents, probe spans and bootstrap (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(names = "--csv", paramLabel = "FILE", description = "Also write the table as CSV.")
    Path csv;

    @Option(
            names = "--chart",
            paramLabel = "FILE.svg",
            description = "Also write an SVG chart of mean KL against the ratio.")
    Path chart;

    /** f32 by default here: the table then measures eviction alone against the f32 reference. */
    @Mixin
    CacheTypeOptions cacheTypes = new CacheTypeOptions("f32");

    @Option(
            names = {"-t", "--threads"},
            paramLabel = "N",
            description = "Compute threads (default: every processor, ${DEFAULT-VALUE} here).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SamplingOptions.check(spec, documents >= 1, "--documents must be >= 1 (got " + documents + ")");
        SamplingOptions.check(spec, threads >= 1, "--threads must be >= 1 (got " + threads + ")");
        SamplingOptions.check(
                spec,
                !(noProbe && spec.commandLine().getParseResult().hasMatchedOption("--probe-depths")),
                "--no-probe and --probe-depths contradict each other");
        Protection protection = protect == null ? Protection.NONE : Protection.parse(protect);
        List<EvalPolicy> chosen = EvalPolicy.parseList(policies);
        // the reference is f32; another storage adds its own row and is what the policies compress
        KvCacheTypes storage = cacheTypes.types(spec);
        FidelityEvaluation.Settings settings = new FidelityEvaluation.Settings(
                context, continuation, ratios, protection, noProbe ? List.of() : probeDepths, 32, 8, bootstrap, seed);
        if (!Files.exists(model)) {
            throw new NoSuchFileException(model.toString());
        }
        List<String> texts = docs == null ? null : Documents.read(docs);
        // An unwritable --csv/--chart fails now, not after the whole run.
        if (csv != null) {
            AtomicFiles.checkWritable(csv, "--csv");
        }
        if (chart != null) {
            AtomicFiles.checkWritable(chart, "--chart");
        }
        VectorSupport.warning().ifPresent(err::println);
        ModelOptions.warnAboveCores(err, threads);
        try (Model m = Model.load(model, new LoadOptions(threads, org.jacap.simd.Precision.NATIVE, null))) {
            Tokenizer tokenizer = m.tokenizer();
            Iterator<String> source = texts == null ? Documents.synthetic(seed) : Documents.once(texts);
            List<int[]> windows = TokenWindows.cut(
                    source,
                    t -> tokenizer.encode(t, false, false),
                    tokenizer.addBosByDefault() ? tokenizer.bosId() : -1,
                    settings.windowLength(),
                    documents);
            if (windows.isEmpty()) {
                throw new JacapException(
                        "the documents hold fewer tokens than one window (" + settings.windowLength() + ")");
            }
            FidelityEvaluation evaluation = new FidelityEvaluation(m, settings, chosen, storage);
            String description = "**" + model.getFileName() + "** · " + windows.size() + " documents ("
                    + (docs == null ? "synthetic stories, seed " + seed : String.valueOf(docs.getFileName()))
                    + (windows.size() < documents
                            ? "; only " + windows.size() + " of " + documents + " windows available"
                            : "")
                    + ") · context " + context + " · continuation " + continuation
                    + " · protection "
                    + (protect == null
                            ? "each policy's own"
                            : protection.sinks() + " sinks + " + protection.recent() + " recent for all")
                    + (settings.probeDepths().isEmpty() ? "" : " · probe depths " + settings.probeDepths())
                    + " · KV storage " + storage.describe() + " · bootstrap " + bootstrap + ", seed " + seed;
            ProgressBar bar = new ProgressBar(err, "eval", Terminal.interactive());
            EvalReport report;
            try {
                report = evaluation.run(windows, description, bar);
            } finally {
                bar.finish();
            }
            out.print(report.markdown());
            out.flush();
            if (csv != null) {
                AtomicFiles.writeString(csv, report.csv());
            }
            if (chart != null) {
                AtomicFiles.writeString(chart, report.chart("Eviction fidelity · " + model.getFileName()));
            }
        }
        return 0;
    }
}

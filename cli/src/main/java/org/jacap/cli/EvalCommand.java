package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import org.jacap.JacapException;
import org.jacap.bench.eval.DecodeEvaluation;
import org.jacap.bench.eval.Documents;
import org.jacap.bench.eval.EvalPolicy;
import org.jacap.bench.eval.EvalReport;
import org.jacap.bench.eval.FidelityEvaluation;
import org.jacap.bench.eval.Passkey;
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

/** {@code jacap eval}: how faithfully each eviction policy keeps the model's predictions (docs/eviction-spec.md §6). */
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

    /** f32 by default: the reference is f32, so any other type adds a row of what it costs alone. */
    @Mixin
    CacheTypeOptions cacheTypes = new CacheTypeOptions("f32");

    @Option(
            names = {"-m", "--model"},
            paramLabel = "MODEL",
            description = "GGUF model (e.g. stories260K.gguf); required unless --from-csv.")
    Path model;

    @Option(
            names = "--from-csv",
            split = ",",
            paramLabel = "FILE",
            description = "Run nothing: render the table, --report, --csv and --chart from these eval CSVs; "
                    + "a (policy, ratio) row of a later file replaces the same row of an earlier one "
                    + "(re-run one policy and splice it in).")
    List<Path> fromCsv;

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
            names = "--passkey-depths",
            paramLabel = "D[,D...]",
            split = ",",
            description = "Passkey task (llama.cpp passkey style: a 5-digit key planted in filler, asked after "
                    + "compression, exact match): one trial per document, at these depths in turn "
                    + "(default: 0.1,0.3,0.5,0.7,0.9).")
    List<Double> passkeyDepths = List.of(0.1, 0.3, 0.5, 0.7, 0.9);

    @Option(names = "--no-passkey", description = "Skip the passkey task.")
    boolean noPasskey;

    @Option(
            names = "--decode",
            paramLabel = "P+T",
            description = "Decode mode: prefill P tokens, then teacher-force T more under a fixed --budget, "
                    + "evicting as the engine does while decoding (e.g. 512+2048); replaces -c/--continuation/"
                    + "--ratios and the retrieval tasks.")
    String decode;

    @Option(
            names = "--budget",
            paramLabel = "B",
            description = "Decode mode: entries each (layer, KV head) keeps (default: ${DEFAULT-VALUE}).")
    int budget = 256;

    @Option(
            names = "--report",
            paramLabel = "DIR",
            description = "Also write DIR/<model>.md (the table, with the charts) beside DIR/<model>-kl.svg, "
                    + "DIR/<model>-retrieval.svg and DIR/<model>.csv.")
    Path report;

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

    @Option(
            names = {"-t", "--threads"},
            paramLabel = "N",
            description = "Compute threads (default: every processor, ${DEFAULT-VALUE} here).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (fromCsv != null) {
            SamplingOptions.check(spec, model == null, "--from-csv runs no model; leave out -m");
            return render(out);
        }
        SamplingOptions.check(spec, model != null, "Missing required option: '--model=MODEL'");
        SamplingOptions.check(spec, documents >= 1, "--documents must be >= 1 (got " + documents + ")");
        SamplingOptions.check(spec, threads >= 1, "--threads must be >= 1 (got " + threads + ")");
        SamplingOptions.check(
                spec,
                !(noProbe && spec.commandLine().getParseResult().hasMatchedOption("--probe-depths")),
                "--no-probe and --probe-depths contradict each other");
        SamplingOptions.check(
                spec,
                !(noPasskey && spec.commandLine().getParseResult().hasMatchedOption("--passkey-depths")),
                "--no-passkey and --passkey-depths contradict each other");
        if (decode != null) {
            for (String o :
                    List.of("--ratios", "--probe-depths", "--passkey-depths", "--protect", "-c", "--continuation")) {
                SamplingOptions.check(
                        spec,
                        !spec.commandLine().getParseResult().hasMatchedOption(o),
                        "--decode sets its own lengths and budget; " + o + " does not apply");
            }
        }
        KvCacheTypes storage = cacheTypes.types(spec);
        Protection protection = protect == null ? Protection.NONE : Protection.parse(protect);
        List<EvalPolicy> chosen = EvalPolicy.parseList(policies);
        if (decode != null) {
            chosen = chosen.stream()
                    .filter(p -> !p.name().equals(EvalPolicy.ORACLE) || !policies.equalsIgnoreCase("all"))
                    .toList();
        }
        FidelityEvaluation.Settings settings = decode != null
                ? null
                : new FidelityEvaluation.Settings(
                        context,
                        continuation,
                        ratios,
                        protection,
                        noProbe ? List.of() : probeDepths,
                        32,
                        8,
                        bootstrap,
                        seed);
        DecodeEvaluation.Settings decodeSettings = decode == null ? null : decodeSettings();
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
            int length = decode == null ? settings.windowLength() : decodeSettings.windowLength();
            int bos = tokenizer.addBosByDefault() ? tokenizer.bosId() : -1;
            List<int[]> windows =
                    TokenWindows.cut(source, t -> tokenizer.encode(t, false, false), bos, length, documents);
            if (windows.isEmpty()) {
                throw new JacapException("the documents hold fewer tokens than one window (" + length + ")");
            }
            String description = "**" + model.getFileName() + "** · " + windows.size() + " documents ("
                    + (docs == null ? "synthetic stories, seed " + seed : String.valueOf(docs.getFileName()))
                    + (windows.size() < documents
                            ? "; only " + windows.size() + " of " + documents + " windows available"
                            : "")
                    + ")";
            if (!storage.equals(KvCacheTypes.F32)) {
                description += " · KV storage " + FidelityEvaluation.storageRow(storage) + " against an f32 reference";
            }
            ProgressBar bar = new ProgressBar(err, "eval", Terminal.interactive());
            EvalReport result;
            try {
                if (decode != null) {
                    description += " · decode mode: prefill " + decodeSettings.prefillTokens() + " + continuation "
                            + decodeSettings.continuationTokens() + " under a budget of " + budget
                            + " entries per (layer, KV head) · threads " + threads + " · bootstrap " + bootstrap
                            + ", seed " + seed;
                    result = new DecodeEvaluation(m, decodeSettings, chosen, storage).run(windows, description, bar);
                } else {
                    List<Passkey.Trial> trials = new ArrayList<>();
                    if (!noPasskey) {
                        Passkey passkey = new Passkey(t -> tokenizer.encode(t, false, false), bos);
                        for (int d = 0; d < windows.size(); d++) {
                            trials.add(passkey.trial(context, passkeyDepths.get(d % passkeyDepths.size()), seed, d));
                        }
                    }
                    description += " · context " + context + " · continuation " + continuation
                            + " · protection "
                            + (protect == null
                                    ? "each policy's own"
                                    : protection.sinks() + " sinks + " + protection.recent() + " recent for all")
                            + (settings.probeDepths().isEmpty() ? "" : " · probe depths " + settings.probeDepths())
                            + (noPasskey ? "" : " · passkey depths " + passkeyDepths + " in turn")
                            + " · threads " + threads + " · bootstrap " + bootstrap + ", seed " + seed;
                    result =
                            new FidelityEvaluation(m, settings, chosen, storage).run(windows, trials, description, bar);
                }
            } finally {
                bar.finish();
            }
            out.print(result.markdown());
            out.flush();
            String title = "Eviction fidelity · " + model.getFileName();
            if (csv != null) {
                AtomicFiles.writeString(csv, result.csv());
            }
            if (chart != null) {
                AtomicFiles.writeString(chart, result.chart(title));
            }
            if (report != null) {
                writeReport(result, title);
            }
        }
        return 0;
    }

    private DecodeEvaluation.Settings decodeSettings() {
        String[] parts = decode.split("\\+", -1);
        int p;
        int t;
        try {
            if (parts.length != 2) {
                throw new NumberFormatException();
            }
            p = Integer.parseInt(parts[0].strip());
            t = Integer.parseInt(parts[1].strip());
        } catch (NumberFormatException e) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "--decode expects PREFILL+CONTINUATION (e.g. 512+2048), got '" + decode + "'");
        }
        SamplingOptions.check(spec, p >= 2 && t >= 1, "--decode needs a prefill >= 2 and a continuation >= 1");
        SamplingOptions.check(spec, budget >= 1, "--budget must be >= 1 (got " + budget + ")");
        return new DecodeEvaluation.Settings(p, t, budget, bootstrap, seed);
    }

    /** {@code --from-csv}: the merged CSVs as a run would print and write them, named after the first file. */
    private int render(PrintWriter out) throws IOException {
        List<String> names = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (Path p : fromCsv) {
            names.add(p.toString());
            texts.add(Utf8Text.read(p, "CSV file"));
        }
        String stem = fromCsv.getFirst().getFileName().toString().replaceAll("\\.csv$", "");
        String description = "**" + stem + "** · from "
                + String.join(
                        ", ",
                        fromCsv.stream().map(f -> f.getFileName().toString()).toList());
        EvalReport result = EvalReport.fromCsv(description, names, texts);
        out.print(result.markdown());
        out.flush();
        String title = "Eviction fidelity · " + stem;
        if (csv != null) {
            AtomicFiles.writeString(csv, result.csv());
        }
        if (chart != null) {
            AtomicFiles.writeString(chart, result.chart(title));
        }
        if (report != null) {
            writeReport(result, title, stem, stem);
        }
        return 0;
    }

    /** The per-model Markdown report with its two charts and the CSV, named after the model file. */
    private void writeReport(EvalReport result, String title) throws IOException {
        String name = model.getFileName().toString();
        writeReport(result, title, name.replaceAll("\\.gguf$", ""), name);
    }

    private void writeReport(EvalReport result, String title, String stem, String heading) throws IOException {
        Files.createDirectories(report);
        AtomicFiles.writeString(report.resolve(stem + "-kl.svg"), result.chart(title));
        String retrieval = result.retrievalChart(title);
        if (retrieval != null) {
            AtomicFiles.writeString(report.resolve(stem + "-retrieval.svg"), retrieval);
        }
        AtomicFiles.writeString(report.resolve(stem + ".csv"), result.csv());
        String md = "# Eviction evaluation · " + heading + "\n\n" + result.markdown() + "\n"
                + "![mean KL against the ratio](" + stem + "-kl.svg)\n"
                + (retrieval == null ? "" : "![retrieval against the ratio](" + stem + "-retrieval.svg)\n");
        AtomicFiles.writeString(report.resolve(stem + ".md"), md);
    }
}

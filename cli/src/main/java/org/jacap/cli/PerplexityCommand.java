package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jacap.bench.perplexity.PerplexityRun;
import org.jacap.bench.progress.Progress;
import org.jacap.model.LoadOptions;
import org.jacap.model.Model;
import org.jacap.simd.VectorSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jacap perplexity}: llama-perplexity's protocol and output, and its KL-divergence mode
 * against a base file that either tool wrote.
 */
@Command(
        name = "perplexity",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Perplexity of a text as llama-perplexity computes it: chunks of -c tokens, the second half of each"
                    + " scored; '[i]ppl,' per chunk, then 'Final estimate: PPL = X +/- Y'.",
            "--kl-divergence-base FILE alone writes llama.cpp's logits file; with --kl-divergence it compares"
                    + " this model with that file (written by Jacap or by llama-perplexity) and prints its statistics."
        })
final class PerplexityCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = {"-m", "--model"},
            required = true,
            paramLabel = "MODEL",
            description = "GGUF model file.")
    Path model;

    @Option(
            names = {"-f", "--file"},
            paramLabel = "TEXT",
            description = "UTF-8 text to score (not needed with --kl-divergence: the base file holds the tokens).")
    Path file;

    @Option(
            names = {"-c", "--ctx"},
            paramLabel = "C",
            description = "Tokens per chunk (default: ${DEFAULT-VALUE}).")
    int nCtx = 512;

    @Option(
            names = "--chunks",
            paramLabel = "N",
            description = "Score at most N chunks; -1 = all the text holds (default: ${DEFAULT-VALUE}).")
    int chunks = -1;

    @Option(
            names = {"-b", "--batch-size"},
            paramLabel = "B",
            description = "Tokens per forward call in the unscored half of a chunk (default: ${DEFAULT-VALUE}).")
    int batch = 512;

    @Option(
            names = {"-t", "--threads"},
            paramLabel = "T",
            description = "Compute threads (default: every processor, ${DEFAULT-VALUE} here).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(
            names = "--precision",
            paramLabel = "native|f32",
            description = "Activation precision, as for run (default: ${DEFAULT-VALUE}).")
    String precision = "native";

    @Option(
            names = "--kl-divergence-base",
            paramLabel = "FILE",
            description = "llama.cpp logits file: written from this model's log-probs, or read with --kl-divergence.")
    Path base;

    @Option(
            names = "--kl-divergence",
            description = "Compare with --kl-divergence-base instead of writing it: KLD, PPL ratio, same top p, Δp.")
    boolean klDivergence;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SamplingOptions.check(spec, threads >= 1, "--threads must be >= 1 (got " + threads + ")");
        SamplingOptions.check(spec, batch >= 1, "--batch-size must be >= 1 (got " + batch + ")");
        SamplingOptions.check(spec, nCtx >= 4, "--ctx must be >= 4 (got " + nCtx + ")");
        SamplingOptions.check(spec, chunks != 0, "--chunks must be >= 1, or -1 for all");
        SamplingOptions.check(spec, !klDivergence || base != null, "--kl-divergence needs --kl-divergence-base FILE");
        SamplingOptions.check(spec, klDivergence || file != null, "-f TEXT is required (unless --kl-divergence)");
        var prec = ModelOptions.parsePrecision(spec, precision);
        if (!Files.exists(model)) {
            throw new NoSuchFileException(model.toString());
        }
        if (klDivergence && !Files.isRegularFile(base)) {
            throw new NoSuchFileException(base.toString());
        }
        String text = klDivergence ? null : Utf8Text.read(file, "text file");
        VectorSupport.warning().ifPresent(err::println);
        try (Model m = Model.load(model, new LoadOptions(threads, prec, null))) {
            PerplexityRun run = new PerplexityRun(m, m.tokenizer(), out, Progress.NONE);
            int[] tokens = text == null ? new int[0] : run.tokenize(text);
            if (text != null && tokens.length >= 2 * nCtx) {
                err.printf(
                        Locale.ROOT,
                        "perplexity: %d tokens, n_ctx=%d, %d chunks, %d threads, precision %s%n",
                        tokens.length,
                        nCtx,
                        chunks < 0 ? tokens.length / nCtx : Math.min(chunks, tokens.length / nCtx),
                        threads,
                        precision);
                err.flush();
            }
            PerplexityRun.Mode mode = klDivergence
                    ? new PerplexityRun.Mode.CompareBase(base)
                    : base != null ? new PerplexityRun.Mode.WriteBase(base) : new PerplexityRun.Mode.Plain();
            if (mode instanceof PerplexityRun.Mode.WriteBase) {
                // Written whole or not at all: a partial base file would fail a later comparison late.
                Path part = base.resolveSibling(base.getFileName() + ".part");
                try {
                    run.run(tokens, nCtx, chunks, batch, new PerplexityRun.Mode.WriteBase(part));
                    Files.move(part, base, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                } finally {
                    Files.deleteIfExists(part);
                }
                err.println("perplexity: wrote " + base);
            } else {
                run.run(tokens, nCtx, chunks, batch, mode);
            }
        }
        return 0;
    }
}

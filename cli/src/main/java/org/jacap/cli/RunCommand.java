package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jacap.engine.Engine;
import org.jacap.engine.EvictionMode;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.Session;
import org.jacap.sampling.SamplerConfig;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jacap run}: one prompt, one streamed completion on stdout, llama.cpp-style timings on
 * stderr.
 */
@Command(
        name = "run",
        sortOptions = false,
        description = "Generate text from a prompt and stream it to stdout; timings go to stderr.")
final class RunCommand extends HelpedCommand {

    @Mixin
    ModelOptions modelOptions;

    @ArgGroup(exclusive = true, multiplicity = "1")
    PromptSource prompt;

    static final class PromptSource {
        @Option(
                names = {"-p", "--prompt"},
                paramLabel = "PROMPT",
                description = "Prompt text (\"\" = BOS only).")
        String text;

        @Option(
                names = "--prompt-ids",
                paramLabel = "IDS",
                description = "Prompt as comma-separated token ids (e.g. 1,403,407), used as given (no BOS added).")
        String ids;

        @Option(
                names = {"-f", "--file"},
                paramLabel = "FILE",
                description = "Read the prompt from a UTF-8 file ('-': standard input).")
        Path file;
    }

    @Option(
            names = {"-n", "--n-predict"},
            paramLabel = "N",
            description = "Tokens to generate at most (default: ${DEFAULT-VALUE}).")
    int maxTokens = GenerationOptions.DEFAULT_MAX_TOKENS;

    @Mixin
    SamplingOptions sampling;

    @Mixin
    KvOptions kv;

    @Mixin
    CacheTypeOptions cacheTypes;

    @Option(
            names = "--stop",
            paramLabel = "STR",
            description = "Stop before this text (repeatable); it is not printed.")
    List<String> stops = new ArrayList<>();

    @Option(names = "--no-bos", description = "Do not add the BOS token to a text prompt.")
    boolean noBos;

    @Option(names = "--special", description = "Parse special-token text (e.g. <|im_end|>) in a text prompt.")
    boolean special;

    @Option(names = "--print-ids", description = "After the text, print the generated token ids on one line.")
    boolean printIds;

    @Option(
            names = "--verbose-prompt",
            description = "Before generating, print the prompt as the model sees it and its token ids (stderr).")
    boolean verbosePrompt;

    @Option(
            names = "--ignore-eos",
            description = "Never sample an end-of-generation token: generate all -n tokens (as llama.cpp).")
    boolean ignoreEos;

    @Option(
            names = "--logprobs",
            paramLabel = "N",
            description = {
                "Per generated token, one JSON line with its log-prob (log-softmax of the raw logits) and the"
                        + " N most likely tokens' (1-" + GenerationOptions.MAX_LOGPROBS + "). Written to stdout"
                        + " instead of the text, or to --logprobs-file."
            })
    Integer logprobs;

    @Option(
            names = "--logprobs-file",
            paramLabel = "FILE",
            description = "Write the --logprobs JSON lines to FILE; stdout keeps the text.")
    Path logprobsFile;

    @Override
    public Integer call() throws IOException {
        modelOptions.validate(spec);
        SamplerConfig samplerConfig = sampling.toConfig(spec);
        SamplingOptions.check(spec, maxTokens >= 0, "-n must be >= 0 (got " + maxTokens + ")");
        SamplingOptions.check(spec, stops.stream().noneMatch(String::isEmpty), "--stop needs a non-empty string");
        SamplingOptions.check(
                spec, prompt.ids == null || !noBos, "--no-bos applies to text prompts; --prompt-ids are used as given");
        SamplingOptions.check(
                spec,
                prompt.ids == null || !special,
                "--special applies to text prompts; --prompt-ids are used as given");
        SamplingOptions.check(
                spec,
                logprobs == null || (logprobs >= 1 && logprobs <= GenerationOptions.MAX_LOGPROBS),
                "--logprobs must be in [1, " + GenerationOptions.MAX_LOGPROBS + "] (got " + logprobs + ")");
        SamplingOptions.check(spec, logprobsFile == null || logprobs != null, "--logprobs-file needs --logprobs N");
        int[] ids = prompt.ids == null ? null : parseIds(prompt.ids);
        EvictionMode eviction = kv.eviction(spec);
        var types = cacheTypes.types(spec);
        String text = prompt.file != null ? readPrompt(prompt.file) : prompt.text;

        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        GenerationOptions options = GenerationOptions.defaults()
                .withMaxTokens(maxTokens)
                .withSampler(samplerConfig)
                .withStopStrings(stops)
                .withAddBos(!noBos)
                .withSpecialTokens(special)
                .withIgnoreEos(ignoreEos)
                .withLogprobs(logprobs == null ? 0 : logprobs);
        long loadStart = System.nanoTime();
        try (Engine engine = modelOptions.load(spec);
                Session session = engine.newSession(
                        modelOptions.sessionOptions().withEviction(eviction).withCacheTypes(types))) {
            long loadNanos = System.nanoTime() - loadStart;
            var generation = text != null ? session.start(text, options) : session.start(ids, options);
            if (verbosePrompt) {
                var tok = engine.tokenizer();
                int[] promptIds = text != null ? tok.encode(text, !noBos && tok.addBosByDefault(), special) : ids;
                printPrompt(err, tok, text != null ? text : tok.decode(ids), promptIds);
            }
            KvOptions.warnBeyondTrainedContext(
                    err,
                    eviction,
                    (long) session.tokens().length + maxTokens,
                    engine.config().contextLength());
            // The JSON lines replace the text on stdout unless they go to a file.
            boolean linesOnStdout = logprobs != null && logprobsFile == null;
            PrintWriter lines = logprobs == null
                    ? null
                    : linesOnStdout
                            ? out
                            : new PrintWriter(Files.newBufferedWriter(logprobsFile, StandardCharsets.UTF_8));
            try {
                if (!linesOnStdout) {
                    out.print(text != null ? text : engine.tokenizer().decode(ids)); // echo, as llama.cpp does
                    out.flush();
                }
                int index = 0;
                while (generation.hasNext()) {
                    var event = generation.next();
                    if (lines != null) {
                        lines.println(LogprobLines.line(index++, event, engine.tokenizer()));
                    }
                    if (!linesOnStdout) {
                        out.print(event.text());
                    }
                    out.flush();
                    if (out.checkError()) { // stdout closed (e.g. piped into head): stop, say nothing more
                        generation.close();
                        return ErrorHandler.BROKEN_PIPE;
                    }
                }
            } finally {
                if (lines != null && !linesOnStdout) {
                    lines.close();
                }
            }
            GenerationResult result = generation.result();
            if (!linesOnStdout) {
                out.println();
            }
            if (printIds) {
                out.println(
                        Arrays.stream(result.ids()).mapToObj(Integer::toString).collect(Collectors.joining(",")));
            }
            out.flush();
            printTimings(err, loadNanos, result, samplerConfig);
            KvOptions.printSummary(err, session.kvCacheStats(), result.timings());
        }
        return 0;
    }

    /** llama.cpp's {@code --verbose-prompt} block: the rendered prompt, then one {@code id -> 'piece'} line per token. */
    static void printPrompt(PrintWriter err, org.jacap.tokenizer.Tokenizer tokenizer, String text, int[] prompt) {
        err.println("prompt: '" + text + "'");
        err.println("number of tokens in prompt = " + prompt.length);
        for (int id : prompt) {
            err.printf("%6d -> '%s'%n", id, tokenizer.piece(id));
        }
        err.println();
        err.flush();
    }

    private int[] parseIds(String list) {
        String[] parts = list.split(",", -1);
        int[] ids = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i].strip();
            SamplingOptions.check(
                    spec,
                    p.matches("\\d{1,9}"),
                    "--prompt-ids: '" + p + "' is not a token id (expected e.g. 1,403,407)");
            ids[i] = Integer.parseInt(p);
        }
        return ids;
    }

    /** A prompt file's text; one trailing newline is dropped, as llama.cpp does. */
    private static String readPrompt(Path file) throws IOException {
        String s = file.toString().equals("-")
                ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                : Utf8Text.read(file, "prompt file");
        if (s.endsWith("\r\n")) {
            return s.substring(0, s.length() - 2);
        }
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    /** llama.cpp's perf lines, so the two can be compared side by side. */
    static void printTimings(PrintWriter err, long loadNanos, GenerationResult r, SamplerConfig config) {
        var t = r.timings();
        err.println(String.format(Locale.ROOT, "       load time = %10.2f ms", loadNanos / 1e6));
        err.println(perfLine("   sampling time", t.sampleNanos(), r.ids().length, "runs  "));
        err.println(perfLine("prompt eval time", t.promptEvalNanos(), t.promptTokens(), "tokens"));
        err.println(perfLine("       eval time", t.evalNanos(), t.evalTokens(), "runs  "));
        String seed = config.isGreedy() ? "greedy" : "seed " + r.seed();
        err.println(String.format(
                Locale.ROOT,
                "%d tokens generated, stop: %s, %s",
                r.generatedTokens(),
                r.finishReason().name().toLowerCase(Locale.ROOT).replace('_', ' '),
                seed));
        err.flush();
    }

    private static String perfLine(String label, long nanos, int count, String unit) {
        double ms = nanos / 1e6;
        double perToken = count == 0 ? 0 : ms / count;
        double perSecond = nanos == 0 ? 0 : count * 1e9 / nanos;
        return String.format(
                Locale.ROOT,
                "%s = %10.2f ms / %5d %s (%8.2f ms per token, %8.2f tokens per second)",
                label,
                ms,
                count,
                unit,
                perToken,
                perSecond);
    }
}

package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import org.jacap.JacapException;
import org.jacap.engine.ComputePrecision;
import org.jacap.engine.Engine;
import org.jacap.engine.EngineOptions;
import org.jacap.engine.SessionOptions;
import org.jacap.simd.Precision;
import org.jacap.simd.VectorSupport;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The flags that say which model to load and how: shared by {@code run} and {@code chat}. */
final class ModelOptions {

    @Option(
            names = {"-m", "--model"},
            required = true,
            paramLabel = "MODEL",
            description = "GGUF model file.")
    Path model;

    @Option(
            names = {"-t", "--threads"},
            paramLabel = "T",
            description = "Compute threads (default: every processor, ${DEFAULT-VALUE} here).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(
            names = {"-c", "--ctx"},
            paramLabel = "C",
            description = "Context length in tokens; 0 = the model's own (default: ${DEFAULT-VALUE}).")
    int contextLength = 0;

    @Option(
            names = "--precision",
            paramLabel = "native|f32",
            description =
                    "native: activations quantized like llama.cpp's CPU path; f32: float activations (default: ${DEFAULT-VALUE}).")
    String precision = "native";

    /** Checks the values before anything is loaded. */
    void validate(CommandSpec spec) {
        SamplingOptions.check(spec, threads >= 1, "--threads must be >= 1 (got " + threads + ")");
        SamplingOptions.check(
                spec, contextLength >= 0, "--ctx must be >= 0 (got " + contextLength + "; 0 = the model's)");
        parsedPrecision(spec);
    }

    Precision parsedPrecision(CommandSpec spec) {
        return parsePrecision(spec, precision);
    }

    /** A {@code --precision} value ({@code native} or {@code f32}, any case); a usage error otherwise. */
    static Precision parsePrecision(CommandSpec spec, String precision) {
        return switch (precision.toLowerCase(Locale.ROOT)) {
            case "native" -> Precision.NATIVE;
            case "f32" -> Precision.F32;
            default -> {
                SamplingOptions.check(spec, false, "unknown --precision '" + precision + "' (native or f32)");
                yield Precision.NATIVE;
            }
        };
    }

    SessionOptions sessionOptions() {
        return SessionOptions.defaults().withContextLength(contextLength);
    }

    /** More compute threads than processors only makes them wait for each other (1000 on 2 cores: 10x slower). */
    static void warnAboveCores(PrintWriter err, int threads) {
        int cores = Runtime.getRuntime().availableProcessors();
        if (threads > cores) {
            err.println("jacap: warning: -t " + threads + " is more than the " + cores
                    + " processors here; the threads will wait on each other (try -t " + cores + ")");
        }
    }

    /** Warns about a slow SIMD set-up, then loads the model with a progress display for large files. */
    Engine load(CommandSpec spec) throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        VectorSupport.warning().ifPresent(err::println);
        warnAboveCores(err, threads);
        if (!Files.exists(model)) {
            throw new NoSuchFileException(model.toString());
        }
        if (!Files.isRegularFile(model)) {
            throw new JacapException("not a model file: " + model);
        }
        LoadProgressView view = new LoadProgressView(
                err, Terminal.interactive(), String.valueOf(model.getFileName()), Files.size(model));
        Engine engine = Engine.load(
                model,
                new EngineOptions(
                        threads, ComputePrecision.valueOf(parsedPrecision(spec).name()), view));
        view.finished();
        return engine;
    }
}

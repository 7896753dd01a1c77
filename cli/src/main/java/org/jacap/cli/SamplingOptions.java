package org.jacap.cli;

import org.jacap.sampling.SamplerConfig;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The sampling flags shared by {@code run} and {@code chat}. Defaults are llama.cpp's except the
 * temperature: the command line is greedy unless {@code --temp} is given, so that a plain
 * {@code jacap run} reproduces reference generations (the library's default stays 0.8).
 */
final class SamplingOptions {
    private static final SamplerConfig DEFAULTS = SamplerConfig.defaults();

    @Option(
            names = "--temp",
            paramLabel = "T",
            description = "Temperature; 0 = greedy, 0.8 = llama.cpp's sampling (default: ${DEFAULT-VALUE}).")
    float temperature = 0f;

    @Option(
            names = "--top-k",
            paramLabel = "K",
            description = "Keep the K most likely tokens; 0 = off (default: ${DEFAULT-VALUE}).")
    int topK = DEFAULTS.topK();

    @Option(
            names = "--top-p",
            paramLabel = "P",
            description = "Nucleus: keep tokens up to probability P, in (0, 1]; 1 = off (default: ${DEFAULT-VALUE}).")
    float topP = DEFAULTS.topP();

    @Option(
            names = "--min-p",
            paramLabel = "P",
            description = "Drop tokens below P × the top probability; 0 = off (default: ${DEFAULT-VALUE}).")
    float minP = DEFAULTS.minP();

    @Option(
            names = "--repeat-penalty",
            paramLabel = "R",
            description = "Penalty for recent tokens; 1 = off (default: ${DEFAULT-VALUE}).")
    float repeatPenalty = DEFAULTS.repeatPenalty();

    @Option(
            names = "--repeat-last-n",
            paramLabel = "N",
            description = "Recent tokens the penalty looks at; 0 = off, -1 = context (default: ${DEFAULT-VALUE}).")
    int repeatLastN = DEFAULTS.repeatLastN();

    @Option(
            names = "--seed",
            paramLabel = "S",
            description = "Random seed; -1 = a fresh one, printed at the end (default: ${DEFAULT-VALUE}).")
    long seed = SamplerConfig.RANDOM_SEED;

    /** The sampler settings, or a parameter error naming the offending flag. */
    SamplerConfig toConfig(CommandSpec spec) {
        check(spec, Float.isFinite(temperature) && temperature >= 0, "--temp must be >= 0 (got " + temperature + ")");
        check(spec, topK >= 0, "--top-k must be >= 0 (got " + topK + ")");
        check(spec, topP > 0 && topP <= 1, "--top-p must be in (0, 1] (got " + topP + ")");
        check(spec, minP >= 0 && minP <= 1, "--min-p must be in [0, 1] (got " + minP + ")");
        check(
                spec,
                Float.isFinite(repeatPenalty) && repeatPenalty > 0,
                "--repeat-penalty must be > 0 (got " + repeatPenalty + ")");
        check(spec, repeatLastN >= -1, "--repeat-last-n must be >= -1 (got " + repeatLastN + ")");
        check(spec, seed >= -1, "--seed must be >= 0, or -1 for a fresh one (got " + seed + ")");
        return new SamplerConfig(temperature, topK, topP, minP, repeatPenalty, repeatLastN, seed);
    }

    static void check(CommandSpec spec, boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}

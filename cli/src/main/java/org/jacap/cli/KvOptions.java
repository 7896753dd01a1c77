package org.jacap.cli;

import java.io.PrintWriter;
import java.util.Locale;
import org.jacap.JacapException;
import org.jacap.engine.EvictionMode;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.KvCacheStats;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The KV-cache eviction flags, shared by {@code run} and {@code chat}. */
final class KvOptions {

    @Option(
            names = "--kv-policy",
            paramLabel = "NAME[:k=v,...]",
            description = {
                "KV-cache eviction policy (default: none): none, random, streaming, knorm, keydiff, snapkv,"
                        + " tova, h2o, expected, capkv, jacap, jacap-paper, jacap-literal, jacap-observed, greedy; parameters as"
                        + " in jacap-paper:tau=20 or snapkv:window=32. Needs --kv-ratio or --kv-budget."
            })
    String policy;

    @Option(
            names = "--kv-allocator",
            paramLabel = "uniform|pyramid|ada",
            description = "How a layer's budget is shared among KV heads and layers (default: uniform).")
    String allocator;

    @Option(
            names = "--kv-ratio",
            paramLabel = "R",
            description =
                    "Compress the prompt's cache: every layer and KV head keeps (1-R) of its entries, R in [0,1).")
    Double ratio;

    @Option(
            names = "--kv-budget",
            paramLabel = "N",
            description = {
                "Entries kept per layer and KV head, during the prompt and generation alike: memory stays"
                        + " bounded and generation may run past the cache size (up to --ctx when given)."
            })
    Integer budget;

    @Option(
            names = "--kv-slack",
            paramLabel = "N",
            description = "With --kv-budget: entries a head may grow past the budget before the next eviction"
                    + " (default: max(16, budget/8)).")
    Integer slack;

    @Option(
            names = "--kv-protect",
            paramLabel = "SINKS,RECENT",
            description = "Always keep the first SINKS and the last RECENT entries, whatever the policy.")
    String protect;

    /** The session's policy; a bad combination is one line naming the flag. */
    EvictionMode eviction(CommandSpec spec) {
        try {
            return EvictionMode.evict(KvFlags.parse(policy, allocator, ratio, budget, slack, protect));
        } catch (JacapException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** With a budget, generation may pass the model's trained context: say so once, up front. */
    static void warnBeyondTrainedContext(PrintWriter err, EvictionMode policy, long lastPosition, int trainedContext) {
        if (policy instanceof EvictionMode.Evict && lastPosition > trainedContext) {
            err.println("warning: positions may reach " + lastPosition + ", past the model's trained context of "
                    + trainedContext + " tokens; quality may degrade there");
            err.flush();
        }
    }

    /** The KV lines of the run summary: policy, cache use, eviction time apart from the forward pass. */
    static void printSummary(PrintWriter err, KvCacheStats kv, GenerationResult.Timings t) {
        if (!kv.policy().equals("none")) {
            err.println("       KV policy = " + kv.policy());
        }
        err.println(String.format(
                Locale.ROOT,
                "        KV cache = %10d entries (peak %d per head), %s in use, %s allocated, %s",
                kv.entries(),
                kv.peakHeadLength(),
                bytes(kv.bytesInUse()),
                bytes(kv.bytesAllocated()),
                kv.storage()));
        if (!kv.policy().equals("none")) {
            err.println(String.format(
                    Locale.ROOT,
                    "   eviction time = %10.2f ms / %5d events (prompt %.2f ms, eval %.2f ms; %d entries evicted)",
                    kv.evictionNanos() / 1e6,
                    kv.promptEvents() + kv.decodeEvents(),
                    kv.promptEvictionNanos() / 1e6,
                    kv.decodeEvictionNanos() / 1e6,
                    kv.entriesEvicted()));
            long promptForward = Math.max(0, t.promptEvalNanos() - kv.promptEvictionNanos());
            long evalForward = Math.max(0, t.evalNanos() - kv.decodeEvictionNanos());
            err.println(String.format(
                    Locale.ROOT,
                    "    forward time = %10.2f ms (prompt %.2f ms, %.2f tokens per second; eval %.2f ms, %.2f tokens per second)",
                    (promptForward + evalForward) / 1e6,
                    promptForward / 1e6,
                    perSecond(t.promptTokens(), promptForward),
                    evalForward / 1e6,
                    perSecond(t.evalTokens(), evalForward)));
        }
        err.flush();
    }

    private static double perSecond(int tokens, long nanos) {
        return nanos <= 0 ? 0 : tokens * 1e9 / nanos;
    }

    private static String bytes(long b) {
        if (b < 1024) {
            return b + " B";
        }
        if (b < 1024L * 1024) {
            return String.format(Locale.ROOT, "%.2f KiB", b / 1024.0);
        }
        if (b < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.2f MiB", b / (1024.0 * 1024));
        }
        return String.format(Locale.ROOT, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    }
}

package org.jacap.bench.throughput;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jacap.bench.progress.Progress;
import org.jacap.bench.report.SampleStats;

/**
 * {@code jacap bench --vs llama-bench}: for each thread count and test, {@code rounds} times
 * llama-bench then Jacap on the same file, threads, length and repetitions, so both see the
 * same machine load as nearly as two processes can.
 */
public final class VsBenchmark {
    private VsBenchmark() {}

    public static VsReport run(
            Path model, ThroughputBenchmark.Settings settings, LlamaBench llama, int rounds, Progress progress)
            throws IOException {
        if (rounds < 1) {
            throw new IllegalArgumentException("--vs-rounds must be >= 1, got " + rounds);
        }
        if (!settings.kvPolicies().isEmpty()) {
            throw new IllegalArgumentException(
                    "--vs compares plain pp/tg tests; it cannot be combined with --kv-policy");
        }
        List<VsReport.Row> rows = new ArrayList<>();
        long total = (long) settings.threads().size() * settings.tests().size() * rounds * 2;
        long done = 0;
        for (int threads : settings.threads()) {
            for (BenchCase test : settings.tests()) {
                double[] l = new double[rounds];
                double[] j = new double[rounds];
                LlamaBench.Result lastLlama = null;
                SampleStats lastJacap = null;
                BenchedModel summary = null;
                for (int r = 0; r < rounds; r++) {
                    progress.update(done++, total, "llama-bench " + test.name() + " " + threads + "t");
                    lastLlama = llama.run(model, threads, test, settings.repetitions());
                    l[r] = lastLlama.avgTs();
                    progress.update(done++, total, "jacap " + test.name() + " " + threads + "t");
                    ThroughputBenchmark.Settings one = new ThroughputBenchmark.Settings(
                            List.of(test),
                            List.of(threads),
                            settings.repetitions(),
                            settings.warmups(),
                            settings.precision(),
                            settings.seed());
                    BenchResult result = ThroughputBenchmark.run(model, one, Progress.NONE)
                            .results()
                            .getFirst();
                    summary = result.model();
                    lastJacap = result.throughput();
                    j[r] = lastJacap.mean();
                }
                progress.update(done, total, "");
                SampleStats llamaStats = rounds == 1
                        ? new SampleStats(lastLlama.avgTs(), lastLlama.stddevTs(), settings.repetitions())
                        : SampleStats.of(l);
                SampleStats jacapStats = rounds == 1 ? lastJacap : SampleStats.of(j);
                double lowest = Double.POSITIVE_INFINITY;
                double highest = Double.NEGATIVE_INFINITY;
                for (int r = 0; r < rounds; r++) {
                    lowest = Math.min(lowest, j[r] / l[r]);
                    highest = Math.max(highest, j[r] / l[r]);
                }
                rows.add(new VsReport.Row(summary, threads, test, llamaStats, jacapStats, lowest, highest));
            }
        }
        return new VsReport(rows, rounds);
    }
}

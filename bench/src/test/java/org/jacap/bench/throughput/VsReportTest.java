package org.jacap.bench.throughput;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jacap.bench.report.SampleStats;
import org.junit.jupiter.api.Test;

class VsReportTest {
    private static final BenchedModel MODEL =
            new BenchedModel("llama 1B Q4_0", "synthetic-1b-q4_0-42.gguf", 763_000_000L, 1_235_814_400L);

    private static VsReport.Row row(double lowest, double highest) {
        return new VsReport.Row(
                MODEL,
                2,
                BenchCase.prompt(512),
                new SampleStats(200, 10, 2),
                new SampleStats(140, 4, 2),
                lowest,
                highest);
    }

    @Test
    void severalRoundsShowTheRangeOfTheirRatios() {
        String md = new VsReport(List.of(row(0.66, 0.7249)), 3).markdown();
        String[] lines = md.split("\n");
        assertThat(lines[0]).endsWith("| Jacap/llama |   per round |");
        assertThat(lines[2]).endsWith("|       0.70x |  0.66-0.72x |");
        assertThat(md).contains("3 rounds per test; per round: the lowest and highest of the rounds' own ratios");
    }

    @Test
    void oneRoundHasNoRange() {
        String md = new VsReport(List.of(row(0.7, 0.7)), 1).markdown();
        assertThat(md.split("\n")[0]).endsWith("| Jacap/llama |").doesNotContain("per round");
        assertThat(md).contains("1 round per test; only ratios");
    }
}

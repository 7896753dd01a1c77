package org.jacap.bench.throughput;

import java.util.ArrayList;
import java.util.List;
import org.jacap.bench.report.MarkdownTable;
import org.jacap.bench.report.MarkdownTable.Column;
import org.jacap.bench.report.SampleStats;
import org.jacap.bench.report.Units;

/**
 * llama-bench and Jacap measured alternately on the same file, threads and test: llama-bench's
 * table with both rates and their ratio (Jacap / llama.cpp).
 *
 * @param rows one per thread count and test
 * @param rounds how many times each pair was measured (llama-bench, then Jacap)
 */
public record VsReport(List<Row> rows, int rounds) {

    /**
     * One test: the mean over the rounds of each side's mean tokens/s, and the spread of those
     * means (for one round, each tool's own standard deviation over its repetitions), and the
     * lowest and highest of the rounds' own ratios (Jacap / llama.cpp in the same round).
     */
    public record Row(
            BenchedModel model,
            int threads,
            BenchCase test,
            SampleStats llama,
            SampleStats jacap,
            double lowestRoundRatio,
            double highestRoundRatio) {
        public double ratio() {
            return jacap.mean() / llama.mean();
        }
    }

    public VsReport {
        rows = List.copyOf(rows);
    }

    public String markdown() {
        List<Column> columns = BenchedModel.columns(
                Column.right("threads", 7),
                Column.right("test", 15),
                Column.right("llama.cpp t/s", 20),
                Column.right("Jacap t/s", 20),
                Column.right("Jacap/llama", 11));
        if (rounds > 1) {
            columns.add(Column.right("per round", 11));
        }
        MarkdownTable table = new MarkdownTable(columns);
        for (Row r : rows) {
            List<String> cells = new ArrayList<>(r.model()
                    .cells(
                            Integer.toString(r.threads()),
                            r.test().name(),
                            r.llama().format(2),
                            r.jacap().format(2),
                            Units.fixed(r.ratio(), 2) + "x"));
            if (rounds > 1) {
                cells.add(Units.fixed(r.lowestRoundRatio(), 2) + "-" + Units.fixed(r.highestRoundRatio(), 2) + "x");
            }
            table.row(cells);
        }
        String perRound = rounds > 1 ? "; per round: the lowest and highest of the rounds' own ratios" : "";
        return table.render() + "\nalternating llama-bench / Jacap, " + rounds + (rounds == 1 ? " round" : " rounds")
                + " per test" + perRound + "; only ratios from one run mean anything on a shared machine\n";
    }
}

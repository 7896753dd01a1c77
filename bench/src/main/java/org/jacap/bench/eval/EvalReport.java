package org.jacap.bench.eval;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jacap.JacapException;
import org.jacap.bench.report.Csv;
import org.jacap.bench.report.MarkdownTable;
import org.jacap.bench.report.MarkdownTable.Column;
import org.jacap.bench.report.SvgLineChart;
import org.jacap.bench.report.Units;

/**
 * The result of {@code jacap eval}: one row per (policy, ratio) plus the full-cache reference, as
 * a Markdown table, CSV, or an SVG chart of mean KL against the compression ratio.
 *
 * @param description one line saying what was measured (model, documents, lengths, protection, seed)
 */
public record EvalReport(String description, List<CellSummary> cells) {

    private static final List<String> CSV_FIELDS = List.of(
            "policy",
            "ratio",
            "kept_per_head",
            "kl_mean",
            "kl_mean_lo",
            "kl_mean_hi",
            "kl_p90",
            "kl_p90_lo",
            "kl_p90_hi",
            "top1",
            "top1_lo",
            "top1_hi",
            "delta_nll",
            "delta_nll_lo",
            "delta_nll_hi",
            "probe_exact",
            "probe_exact_lo",
            "probe_exact_hi",
            "probe_acc",
            "probe_acc_lo",
            "probe_acc_hi",
            "probe_logp",
            "probe_logp_lo",
            "probe_logp_hi",
            "passkey",
            "passkey_lo",
            "passkey_hi",
            "scoring_ms");

    public EvalReport {
        cells = List.copyOf(cells);
    }

    /**
     * The report of an evaluation's accumulated rows in table order: the full cache, the stored full
     * cache ({@code storage}, null when not run), then the cells, all summarized over one bootstrap;
     * the description ends with the full cache's mean NLL.
     */
    static EvalReport summarize(
            String description,
            double meanFullNll,
            PairedBootstrap bootstrap,
            CellAccumulator full,
            CellAccumulator storage,
            Collection<CellAccumulator> cells) {
        List<CellSummary> summaries = new ArrayList<>();
        summaries.add(full.summarize(bootstrap));
        if (storage != null) {
            summaries.add(storage.summarize(bootstrap));
        }
        for (CellAccumulator c : cells) {
            summaries.add(c.summarize(bootstrap));
        }
        String line = description + " · full-cache NLL " + Units.fixed(meanFullNll, 4) + " nats/token";
        return new EvalReport(line, summaries);
    }

    public String markdown() {
        boolean probe = cells.stream().anyMatch(c -> c.probe() != null);
        List<Column> columns = new ArrayList<>(List.of(
                Column.left("policy", 10),
                Column.right("ratio", 5),
                Column.right("kept", 4),
                Column.right("KL mean [95% CI]", 26),
                Column.right("KL p90", 7),
                Column.right("top-1 [95% CI]", 22),
                Column.right("ΔNLL [95% CI]", 26)));
        if (probe) {
            columns.add(Column.right("probe EM", 8));
            columns.add(Column.right("probe acc", 9));
            columns.add(Column.right("probe log p", 11));
        }
        boolean passkey = cells.stream().anyMatch(c -> c.passkey() != null);
        if (passkey) {
            columns.add(Column.right("passkey [95% CI]", 22));
        }
        columns.add(Column.right("score ms", 8));
        MarkdownTable t = new MarkdownTable(columns);
        for (CellSummary c : cells) {
            List<String> row = new ArrayList<>(List.of(
                    c.policy(),
                    ratio(c.ratio()),
                    Integer.toString(c.keptPerHead()),
                    c.meanKl().format(4),
                    Units.fixed(c.p90Kl().value(), 4),
                    c.top1Agreement().format(3),
                    c.deltaNll().format(4)));
            if (probe) {
                CellSummary.ProbeSummary p = c.probe();
                row.add(p == null ? "" : Units.fixed(p.exactMatch().value(), 3));
                row.add(p == null ? "" : Units.fixed(p.tokenAccuracy().value(), 3));
                row.add(p == null ? "" : Units.fixed(p.meanLogProb().value(), 3));
            }
            if (passkey) {
                row.add(c.passkey() == null ? "" : c.passkey().format(3));
            }
            row.add(Units.fixed(c.scoringMillis(), 2));
            t.row(row);
        }
        return description + "\n\n" + t.render();
    }

    /**
     * A report from {@link #csv} texts, as {@code jacap eval --from-csv} merges them: the cells in
     * order of first appearance, a (policy, ratio) cell of a later text replacing the same cell of an
     * earlier one (re-run one policy and splice it in). The intervals are the files' own.
     *
     * @throws JacapException for a text that is not an eval CSV, naming it
     */
    public static EvalReport fromCsv(String description, List<String> names, List<String> texts) {
        Map<String, CellSummary> cells = new LinkedHashMap<>();
        for (int t = 0; t < texts.size(); t++) {
            List<List<String>> records;
            try {
                records = Csv.parse(texts.get(t));
            } catch (IllegalArgumentException e) {
                throw new JacapException(names.get(t) + ": " + e.getMessage());
            }
            if (records.isEmpty() || !records.getFirst().equals(CSV_FIELDS)) {
                throw new JacapException(names.get(t) + ": not a jacap eval CSV (its header differs)");
            }
            for (int r = 1; r < records.size(); r++) {
                List<String> f = records.get(r);
                try {
                    if (f.size() != CSV_FIELDS.size()) {
                        throw new NumberFormatException(f.size() + " fields, expected " + CSV_FIELDS.size());
                    }
                    CellSummary c = cell(f);
                    cells.put(c.policy() + "@" + c.ratio(), c);
                } catch (NumberFormatException e) {
                    throw new JacapException(names.get(t) + ": line " + (r + 1) + ": " + e.getMessage());
                }
            }
        }
        return new EvalReport(description, new ArrayList<>(cells.values()));
    }

    private static CellSummary cell(List<String> f) {
        CellSummary.ProbeSummary probe = f.get(15).isEmpty()
                ? null
                : new CellSummary.ProbeSummary(estimate(f, 15), estimate(f, 18), estimate(f, 21));
        return new CellSummary(
                f.get(0),
                Double.parseDouble(f.get(1)),
                Integer.parseInt(f.get(2)),
                estimate(f, 3),
                estimate(f, 6),
                estimate(f, 9),
                estimate(f, 12),
                probe,
                f.get(24).isEmpty() ? null : estimate(f, 24),
                Double.parseDouble(f.get(27)));
    }

    private static Estimate estimate(List<String> f, int at) {
        return new Estimate(
                Double.parseDouble(f.get(at)), Double.parseDouble(f.get(at + 1)), Double.parseDouble(f.get(at + 2)));
    }

    public String csv() {
        StringBuilder sb = new StringBuilder(Csv.line(CSV_FIELDS));
        for (CellSummary c : cells) {
            List<String> f = new ArrayList<>(List.of(c.policy(), ratio(c.ratio()), Integer.toString(c.keptPerHead())));
            add(f, c.meanKl());
            add(f, c.p90Kl());
            add(f, c.top1Agreement());
            add(f, c.deltaNll());
            if (c.probe() != null) {
                add(f, c.probe().exactMatch());
                add(f, c.probe().tokenAccuracy());
                add(f, c.probe().meanLogProb());
            } else {
                for (int i = 0; i < 9; i++) {
                    f.add("");
                }
            }
            if (c.passkey() != null) {
                add(f, c.passkey());
            } else {
                f.add("");
                f.add("");
                f.add("");
            }
            f.add(Units.fixed(c.scoringMillis(), 4));
            sb.append(Csv.line(f));
        }
        return sb.toString();
    }

    /** Mean KL (with its 95% interval as error bars) against the ratio, one line per policy; the reference is left out. */
    public String chart(String title) {
        return chart(title, "mean KL(full ‖ compressed), nats/token", CellSummary::meanKl);
    }

    /**
     * Retrieval against the ratio: the passkey exact-match rate when the passkey task ran, else the
     * probe's token accuracy; null when neither ran.
     */
    public String retrievalChart(String title) {
        if (cells.stream().anyMatch(c -> c.passkey() != null)) {
            return chart(title, "passkey exact match (fraction of trials)", CellSummary::passkey);
        }
        if (cells.stream().anyMatch(c -> c.probe() != null)) {
            return chart(
                    title,
                    "retrieval probe token accuracy",
                    c -> c.probe() == null ? null : c.probe().tokenAccuracy());
        }
        return null;
    }

    /**
     * One line per policy over its compressed cells; a cell without the metric (a row spliced in from a
     * run without that task) is left out, and a policy with none has no line.
     */
    private String chart(String title, String yLabel, java.util.function.Function<CellSummary, Estimate> metric) {
        Map<String, List<CellSummary>> byPolicy = new LinkedHashMap<>();
        for (CellSummary c : cells) {
            if (c.ratio() > 0 && metric.apply(c) != null) {
                byPolicy.computeIfAbsent(c.policy(), k -> new ArrayList<>()).add(c);
            }
        }
        SvgLineChart chart = new SvgLineChart(title, "compression ratio (fraction of KV entries removed)", yLabel);
        byPolicy.forEach((policy, list) -> {
            List<CellSummary> sorted = list.stream()
                    .sorted(java.util.Comparator.comparingDouble(CellSummary::ratio))
                    .toList();
            int n = sorted.size();
            double[] x = new double[n];
            double[] y = new double[n];
            double[] lo = new double[n];
            double[] hi = new double[n];
            for (int i = 0; i < n; i++) {
                CellSummary c = sorted.get(i);
                Estimate e = metric.apply(c);
                x[i] = c.ratio();
                y[i] = e.value();
                lo[i] = e.low();
                hi[i] = e.high();
            }
            chart.add(new SvgLineChart.Series(policy, x, y, lo, hi));
        });
        return chart.render();
    }

    private static void add(List<String> fields, Estimate e) {
        fields.add(Double.toString(e.value()));
        fields.add(Double.toString(e.low()));
        fields.add(Double.toString(e.high()));
    }

    private static String ratio(double r) {
        String s = Units.fixed(r, 3);
        return s.replaceAll("0+$", "").replaceAll("\\.$", ".0");
    }
}

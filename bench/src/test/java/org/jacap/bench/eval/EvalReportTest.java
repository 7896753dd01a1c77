package org.jacap.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.jacap.JacapException;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class EvalReportTest {

    private static DocumentFidelity doc(double... kl) {
        List<TokenComparison.Score> s = new ArrayList<>();
        for (double k : kl) {
            s.add(new TokenComparison.Score(k, k < 0.5, 1.0, 1.0 + k, 0));
        }
        return DocumentFidelity.of(s);
    }

    private static EvalReport report() {
        PairedBootstrap bootstrap = new PairedBootstrap(3, 200, 5);
        List<CellSummary> cells = new ArrayList<>();
        CellAccumulator full = new CellAccumulator("full", 0);
        for (int d = 0; d < 3; d++) {
            full.add(doc(0, 0), new ProbeScore(1, 1, -0.1), 64, 0);
        }
        cells.add(full.summarize(bootstrap));
        for (String policy : List.of("oracle", "snapkv")) {
            for (double r : new double[] {0.5, 0.875}) {
                CellAccumulator c = new CellAccumulator(policy, r);
                double scale = (policy.equals("oracle") ? 1 : 3) * r;
                c.add(doc(0.1 * scale, 0.3 * scale), new ProbeScore(1, 1, -0.2), (int) (64 * (1 - r)), 2_000_000);
                c.add(doc(0.2 * scale, 0.2 * scale), new ProbeScore(0, 0.5, -1.2), (int) (64 * (1 - r)), 4_000_000);
                c.add(doc(0.0, 0.6 * scale), new ProbeScore(1, 1, -0.3), (int) (64 * (1 - r)), 0);
                cells.add(c.summarize(bootstrap));
            }
        }
        return new EvalReport("stories260K · 3 documents", cells);
    }

    @Test
    void csvReadsBackAndALaterFileReplacesItsCells() {
        EvalReport r = report();
        EvalReport back = EvalReport.fromCsv("d", List.of("a.csv"), List.of(r.csv()));
        assertThat(back.csv()).isEqualTo(r.csv());
        assertThat(back.cells())
                .extracting(CellSummary::meanKl)
                .containsExactlyElementsOf(
                        r.cells().stream().map(CellSummary::meanKl).toList());
        // a second file with one policy re-run under a name holding commas (quoted in CSV)
        String rerun = r.csv()
                .lines()
                .filter(l -> l.startsWith("policy") || l.startsWith("snapkv,0.5,"))
                .map(l -> l.replaceFirst("^snapkv,", "\"jacap:share=0.5,sinks=4\","))
                .reduce("", (a, b) -> a + b + "\n");
        String replace = r.csv()
                .lines()
                .filter(l -> l.startsWith("policy") || l.startsWith("oracle,0.875,"))
                .map(l -> l.replaceFirst(",0\\.875,8,[^,]*,", ",0.875,8,0.5,"))
                .reduce("", (a, b) -> a + b + "\n");
        EvalReport merged =
                EvalReport.fromCsv("m", List.of("a.csv", "b.csv", "c.csv"), List.of(r.csv(), rerun, replace));
        assertThat(merged.cells())
                .extracting(CellSummary::policy)
                .containsExactly("full", "oracle", "oracle", "snapkv", "snapkv", "jacap:share=0.5,sinks=4");
        assertThat(merged.cells().get(2).meanKl().value()).isEqualTo(0.5); // replaced in place
        assertThat(merged.markdown()).contains("| jacap:share=0.5,sinks=4 |");
        assertThatThrownBy(() -> EvalReport.fromCsv("x", List.of("bad.csv"), List.of("a,b\n1,2\n")))
                .isInstanceOf(JacapException.class)
                .hasMessage("bad.csv: not a jacap eval CSV (its header differs)");
        String header = r.csv().lines().findFirst().orElseThrow();
        assertThatThrownBy(() -> EvalReport.fromCsv("x", List.of("t.csv"), List.of(header + "\nfull,zero\n")))
                .isInstanceOf(JacapException.class)
                .hasMessageStartingWith("t.csv: line 2: ");
    }

    @Test
    void chartsLeaveOutCellsSplicedInWithoutTheRetrievalTasks() {
        PairedBootstrap bootstrap = new PairedBootstrap(3, 200, 5);
        List<CellSummary> cells = new ArrayList<>(report().cells());
        for (String policy : List.of("kl-only", "with-passkey")) {
            CellAccumulator c = new CellAccumulator(policy, 0.5);
            for (int d = 0; d < 3; d++) {
                ProbeScore key = policy.equals("kl-only") ? null : new ProbeScore(d % 2, 1, -0.5);
                c.add(doc(0.1, 0.2), null, key, 32, 0);
            }
            cells.add(c.summarize(bootstrap));
        }
        EvalReport mixed = new EvalReport("spliced", cells);
        // the passkey chart: only the policy that ran it has a line
        String passkey = mixed.retrievalChart("t");
        assertThat(passkey).contains("with-passkey").doesNotContain("kl-only").doesNotContain("snapkv");
        // the probe chart, when no cell has a passkey: the probe-less policy has no line
        EvalReport probeOnly = new EvalReport(
                "spliced",
                cells.stream().filter(c -> !c.policy().equals("with-passkey")).toList());
        assertThat(probeOnly.retrievalChart("t")).contains("snapkv").doesNotContain("kl-only");
        assertThat(mixed.chart("t")).contains("kl-only", "with-passkey", "snapkv");
        assertThat(mixed.markdown()).contains("| kl-only ");
    }

    @Test
    void cellSummaryAggregatesDocumentsAndPoolsTokensForP90() {
        CellSummary oracleHalf = report().cells().get(1);
        assertThat(oracleHalf.policy()).isEqualTo("oracle");
        assertThat(oracleHalf.keptPerHead()).isEqualTo(32);
        // Document means: 0.1, 0.1, 0.15 (×0.5 scale) → 0.11666…
        assertThat(oracleHalf.meanKl().value()).isCloseTo((0.1 + 0.1 + 0.15) / 3, within(1e-12));
        // Pooled tokens 0.05 0.15 0.1 0.1 0 0.3 → sorted 0,0.05,0.1,0.1,0.15,0.3; p90 at h=4.5 → 0.225.
        assertThat(oracleHalf.p90Kl().value()).isCloseTo(0.225, within(1e-12));
        assertThat(oracleHalf.scoringMillis()).isCloseTo(2.0, within(1e-12));
        assertThat(oracleHalf.probe().exactMatch().value()).isCloseTo(2.0 / 3, within(1e-12));
        assertThat(oracleHalf.meanKl().low())
                .isLessThanOrEqualTo(oracleHalf.meanKl().value());
    }

    @Test
    void markdownTableHasOneRowPerCell() {
        String md = report().markdown();
        List<String> lines = md.lines().toList();
        assertThat(lines.get(0)).isEqualTo("stories260K · 3 documents");
        assertThat(lines.get(2))
                .startsWith("| policy     | ratio | kept |")
                .contains("KL mean [95% CI]")
                .contains("probe EM")
                .endsWith("score ms |");
        assertThat(lines.get(3)).startsWith("| ---------- | ----: | ---: |");
        assertThat(lines).hasSize(2 + 2 + 5);
        assertThat(lines.get(4)).startsWith("| full       |   0.0 |   64 |    0.0000 [0.0000, 0.0000] |");
        assertThat(lines.get(5)).startsWith("| oracle     |   0.5 |   32 |    0.1167 [");
        assertThat(lines.get(6)).startsWith("| oracle     | 0.875 |    8 |");
    }

    @Test
    void csvHasAllIntervals() {
        List<String> lines = report().csv().lines().toList();
        assertThat(lines).hasSize(6);
        assertThat(lines.get(0).split(",")).hasSize(28);
        assertThat(lines.get(2).split(",")).hasSize(28);
        assertThat(lines.get(2)).startsWith("oracle,0.5,32,0.11666666666666665,");
    }

    @Test
    void chartHasOneSeriesPerPolicyWithoutTheReference() throws Exception {
        String svg = report().chart("KL vs ratio");
        var doc = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        NodeList groups = doc.getElementsByTagName("g");
        List<String> series = new ArrayList<>();
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (g.getAttribute("class").equals("series")) {
                series.add(g.getAttribute("data-name"));
                assertThat(g.getElementsByTagName("circle").getLength()).isEqualTo(2);
            }
        }
        assertThat(series).containsExactly("oracle", "snapkv");
    }

    @Test
    void probeScoreIsExactOnlyWhenEveryTargetIsTop1() {
        assertThat(ProbeScore.of(new boolean[] {true, true}, new double[] {-0.5, -1.5}))
                .isEqualTo(new ProbeScore(1, 1, -1));
        assertThat(ProbeScore.of(new boolean[] {true, false}, new double[] {-1, -3}))
                .isEqualTo(new ProbeScore(0, 0.5, -2));
        assertThat(ProbeScore.mean(List.of(new ProbeScore(1, 1, -1), new ProbeScore(0, 0.5, -2))))
                .isEqualTo(new ProbeScore(0.5, 0.75, -1.5));
    }
}

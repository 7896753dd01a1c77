package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** {@code jacap eval} end to end on stories260K with tiny lengths. */
class EvalCommandTest {
    @TempDir
    Path dir;

    @Test
    void writesTableCsvAndChart() throws Exception {
        Path csv = dir.resolve("eval.csv");
        Path svg = dir.resolve("eval.svg");
        CliRun run = CliRun.line(
                "eval -m {} -N 2 -c 40 --continuation 4 --policies knorm,oracle --ratios 0.5,0.75"
                        + " --probe-depths 0.5 --bootstrap 20 --protect 2,4 --no-passkey -t 1 --csv {} --chart {}",
                CliRun.stories(),
                csv.toString(),
                svg.toString());
        assertThat(run.code()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(0))
                .startsWith("**stories260K.gguf** · 2 documents (synthetic stories, seed 42) · context 40")
                .contains("protection 2 sinks + 4 recent for all")
                .contains("full-cache NLL");
        assertThat(lines.get(2)).startsWith("| policy ").contains("probe EM");
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("| knorm      |  0.75 |   10 |"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("| oracle     |   0.5 |   20 |"));

        List<String> csvLines = Files.readAllLines(csv);
        assertThat(csvLines).hasSize(1 + 1 + 4);
        assertThat(csvLines.get(0)).startsWith("policy,ratio,kept_per_head,kl_mean,");

        var doc = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(new ByteArrayInputStream(Files.readAllBytes(svg)));
        NodeList groups = doc.getElementsByTagName("g");
        List<String> series = new ArrayList<>();
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (g.getAttribute("class").equals("series")) {
                series.add(g.getAttribute("data-name"));
            }
        }
        assertThat(series).containsExactly("knorm", "oracle");
        assertThat(new String(Files.readAllBytes(svg), StandardCharsets.UTF_8)).contains("stories260K.gguf");
    }

    @Test
    void documentsFromAFile() throws Exception {
        Path docs = Files.writeString(
                dir.resolve("stories.txt"),
                "Once upon a time, there was a little dog named Max. Max liked to run in the park with his ball.\n"
                        + "<|endoftext|>\n"
                        + "Lily had a red kite. One day, she went to the beach with Tom and they flew the kite all day.\n");
        CliRun run = CliRun.line(
                "eval -m {} --docs {} -N 5 -c 24 --continuation 4 --policies streaming --ratios 0.5"
                        + " --no-probe --no-passkey --bootstrap 10 -t 1",
                CliRun.stories(),
                docs.toString());
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("(stories.txt; only ")
                .contains("| streaming  |   0.5 |   12 |")
                .doesNotContain("probe EM");
    }

    @Test
    void passkeyAndReportWithBothCharts() throws Exception {
        Path out = dir.resolve("report");
        CliRun run = CliRun.line(
                "eval -m {} -N 2 -c 256 --continuation 4 --policies tova,jacap --ratios 0.0,0.5 --no-probe"
                        + " --passkey-depths 0.2,0.8 --bootstrap 10 -t 1 --report {}",
                CliRun.stories(),
                out.toString());
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("passkey depths [0.2, 0.8] in turn").contains("passkey [95% CI]");
        assertThat(out.resolve("stories260K.md"))
                .content()
                .startsWith("# Eviction evaluation · stories260K.gguf")
                .contains("![mean KL against the ratio](stories260K-kl.svg)")
                .contains("![retrieval against the ratio](stories260K-retrieval.svg)");
        assertThat(out.resolve("stories260K-retrieval.svg")).content().contains("passkey exact match");
        assertThat(out.resolve("stories260K-kl.svg")).content().contains("mean KL");
        assertThat(Files.readAllLines(out.resolve("stories260K.csv")).get(0)).contains(",passkey,passkey_lo,");
    }

    @Test
    void fromCsvMergesARerunPolicyIntoTheReport() throws Exception {
        Path a = dir.resolve("first.csv");
        Path b = dir.resolve("rerun.csv");
        String[] common = {
            "-N",
            "2",
            "-c",
            "64",
            "--continuation",
            "4",
            "--ratios",
            "0.5",
            "--no-probe",
            "--no-passkey",
            "--bootstrap",
            "10",
            "-t",
            "1"
        };
        CliRun first = CliRun.of(concat(
                new String[] {"eval", "-m", CliRun.stories(), "--policies", "tova,knorm", "--csv", a.toString()},
                common));
        assertThat(first.code()).as(first.err()).isZero();
        CliRun rerun = CliRun.of(concat(
                new String[] {"eval", "-m", CliRun.stories(), "--policies", "jacap", "--csv", b.toString()}, common));
        assertThat(rerun.code()).as(rerun.err()).isZero();
        Path out = dir.resolve("merged");
        CliRun merged = CliRun.of("eval", "--from-csv", a + "," + b, "--report", out.toString());
        assertThat(merged.code()).as(merged.err()).isZero();
        assertThat(merged.out()).startsWith("**first** · from first.csv, rerun.csv");
        assertThat(merged.out()
                        .lines()
                        .filter(l -> l.startsWith("| ") && !l.startsWith("| policy") && !l.startsWith("| -")))
                .extracting(l -> l.split("\\|")[1].strip())
                .containsExactly("full", "tova", "knorm", "jacap");
        assertThat(out.resolve("first.md")).content().startsWith("# Eviction evaluation · first");
        assertThat(out.resolve("first-kl.svg")).exists();
        assertThat(CliRun.of("eval", "--from-csv", a.toString(), "-m", CliRun.stories())
                        .errLines())
                .singleElement()
                .asString()
                .contains("--from-csv runs no model");
        assertThat(CliRun.of("eval", "--from-csv", dir.resolve("none.csv").toString())
                        .errLines())
                .singleElement()
                .asString()
                .startsWith("jacap: file not found");
        Files.writeString(dir.resolve("bad.csv"), "a,b\n");
        assertThat(CliRun.of("eval", "--from-csv", dir.resolve("bad.csv").toString())
                        .errLines())
                .singleElement()
                .asString()
                .contains("not a jacap eval CSV");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void decodeModeHoldsTheBudgetThroughTheContinuation() {
        CliRun run = CliRun.line(
                "eval -m {} -N 1 --decode 48+80 --budget 24 --policies all --bootstrap 10 -t 1", CliRun.stories());
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("decode mode: prefill 48 + continuation 80 under a budget of 24")
                .doesNotContain("| oracle");
        assertThat(run.out().lines()).anySatisfy(l -> assertThat(l).matches("\\| jacap +\\| 0\\.813 \\|   24 \\| .*"));
    }

    @Test
    void cacheTypesAddTheStorageRow() {
        CliRun run = CliRun.line(
                "eval -m {} -N 2 -c 64 --continuation 8 --ratios 0.5 --policies tova --no-probe"
                        + " --no-passkey --bootstrap 10 -t 1 -ctk f16 -ctv f32",
                CliRun.stories());
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("KV storage k=f16 v=f32 cache against an f32 reference");
        assertThat(run.out().lines()).anySatisfy(l -> assertThat(l).startsWith("| k=f16 v=f32 cache |   0.0 |   64 |"));
        assertThat(CliRun.of("eval", "-m", CliRun.stories(), "-ctk", "q4").errLines())
                .singleElement()
                .asString()
                .contains("--cache-type-k: unknown KV cache type 'q4'");
    }

    @Test
    void badCommandLinesEndInOneMessage() {
        String model = CliRun.stories();
        assertThat(CliRun.of("eval").errLines()).singleElement().asString().contains("--model");
        assertThat(CliRun.of("eval", "-m", model, "--policies", "bogus").errLines())
                .singleElement()
                .asString()
                .contains("unknown KV eviction policy 'bogus'");
        assertThat(CliRun.of("eval", "-m", model, "--ratios", "1.0").errLines())
                .singleElement()
                .asString()
                .contains("[0, 1)");
        assertThat(CliRun.of("eval", "-m", model, "--protect", "4").errLines())
                .singleElement()
                .asString()
                .contains("N_SINK,N_RECENT");
        assertThat(CliRun.of("eval", "-m", model, "-c", "4000", "--no-probe").errLines())
                .singleElement()
                .asString()
                .contains("model's context");
        assertThat(CliRun.of("eval", "-m", model, "--no-probe", "--probe-depths", "0.5")
                        .errLines())
                .singleElement()
                .asString()
                .contains("contradict");
        assertThat(CliRun.of("eval", "-m", model, "--decode", "512x2048").errLines())
                .singleElement()
                .asString()
                .contains("--decode expects PREFILL+CONTINUATION");
        assertThat(CliRun.of("eval", "-m", model, "--decode", "64+64", "--ratios", "0.5")
                        .errLines())
                .singleElement()
                .asString()
                .contains("--ratios does not apply");
        assertThat(CliRun.of("eval", "-m", model, "--decode", "64+64", "--policies", "oracle")
                        .errLines())
                .singleElement()
                .asString()
                .contains("leave it out of decode mode");
        assertThat(CliRun.of("eval", "-m", model, "-c", "30", "--no-probe").errLines())
                .singleElement()
                .asString()
                .contains("passkey context of 30 tokens is too short");
        assertThat(CliRun.of("eval", "-m", model, "--docs", dir.resolve("none").toString())
                        .errLines())
                .singleElement()
                .asString()
                .startsWith("jacap: file not found");
    }
}

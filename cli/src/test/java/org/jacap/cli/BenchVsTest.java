package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jacap bench --vs}: a stand-in llama-bench (a shell script printing llama-bench's CSV and
 * logging its arguments) shows that both tools get the same file, threads, lengths and
 * repetitions, alternately, and that the table carries both rates and their ratio.
 */
class BenchVsTest {
    @TempDir
    Path dir;

    private static final String HEADER = "build_commit,model_filename,n_threads,n_prompt,n_gen,avg_ts,stddev_ts";

    private Path fakeLlamaBench(String body) throws Exception {
        Path script = dir.resolve("llama-bench");
        Files.writeString(script, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    @Test
    void runsBothAlternatelyAndPrintsTheRatio() throws Exception {
        Path log = dir.resolve("calls.log");
        // pp tests report 1000 t/s, tg tests 250 t/s; the model path column holds a comma, quoted
        Path lb = fakeLlamaBench("echo \"$@\" >> " + log + "\n"
                + "echo '" + HEADER + "'\n"
                + "if [ \"$6\" = 0 ]; then echo '\"abc\",\"a,b.gguf\",\"1\",\"0\",\"4\",\"250.5\",\"2.25\"';"
                + " else echo '\"abc\",\"a,b.gguf\",\"1\",\"16\",\"0\",\"1000\",\"10\"'; fi\n");
        String model = Fixtures.dir().resolve("models/stories260K-Q8_0.gguf").toString();
        CliRun run =
                CliRun.line("bench -m {} --vs {} -t 1 -p 16 -n 4 -r 1 --warmup 0 --vs-rounds 1", model, lb.toString());
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(Files.readAllLines(log))
                .containsExactly(
                        "-m " + model + " -t 1 -p 16 -n 0 -r 1 -o csv", "-m " + model + " -t 1 -p 0 -n 4 -r 1 -o csv");
        String[] lines = run.out().split("\n");
        assertThat(lines[0]).contains("llama.cpp t/s").contains("Jacap t/s").contains("Jacap/llama");
        assertRow(lines[2], "pp16", 1000.0, "1000.00 ± 10.00");
        assertRow(lines[3], "tg4", 250.5, "250.50 ± 2.25");
        assertThat(run.out()).contains("alternating llama-bench / Jacap, 1 round per test");
        assertThat(lines[0]).doesNotContain("per round"); // one round has no range
    }

    /** The row's Jacap rate over llama's is the printed ratio. */
    private static void assertRow(String row, String test, double llama, String llamaCell) {
        List<String> cells = Arrays.stream(row.split("\\|")).map(String::strip).toList();
        assertThat(cells.get(5)).isEqualTo(test);
        assertThat(cells.get(6)).isEqualTo(llamaCell);
        double jacap = Double.parseDouble(cells.get(7).split(" ")[0]);
        assertThat(jacap).isPositive();
        assertThat(cells.get(8)).isEqualTo(String.format(java.util.Locale.ROOT, "%.2fx", jacap / llama));
    }

    @Test
    void roundsAlternateAndAverage() throws Exception {
        Path log = dir.resolve("calls.log");
        Path lb = fakeLlamaBench("echo call >> " + log + "\n"
                + "n=$(wc -l < " + log + ")\n"
                + "echo '" + HEADER + "'\n"
                + "echo \"x,m,1,0,2,$((n * 100)),0\"\n"); // 100 t/s, then 200
        String model = Fixtures.dir().resolve("models/stories260K-Q8_0.gguf").toString();
        CliRun run =
                CliRun.line("bench -m {} --vs {} -t 1 -p 0 -n 2 -r 1 --warmup 0 --vs-rounds 2", model, lb.toString());
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(Files.readAllLines(log)).hasSize(2);
        assertThat(run.out()).contains("150.00 ± 70.71").contains("2 rounds per test"); // mean and spread of 100, 200
        // the rounds' own ratios (Jacap over 100, then over 200) bound the ratio of the means, their mediant
        String[] lines = run.out().split("\n");
        assertThat(lines[0]).contains("per round");
        List<String> cells =
                Arrays.stream(lines[2].split("\\|")).map(String::strip).toList();
        double ratio = Double.parseDouble(cells.get(8).replace("x", ""));
        String[] range = cells.get(9).replace("x", "").split("-");
        double lowest = Double.parseDouble(range[0]);
        double highest = Double.parseDouble(range[1]);
        assertThat(lowest).isLessThan(highest).isLessThanOrEqualTo(ratio + 0.005);
        assertThat(highest).isGreaterThanOrEqualTo(ratio - 0.005);
        assertThat(run.out()).contains("per round: the lowest and highest of the rounds' own ratios");
    }

    @Test
    void failuresEndInOneLine() throws Exception {
        String model = Fixtures.dir().resolve("models/stories260K-Q8_0.gguf").toString();
        assertThat(CliRun.of("bench", "-m", model, "--vs", dir.resolve("none").toString())
                        .errLines())
                .singleElement()
                .asString()
                .contains("--vs: ")
                .contains("is not an executable file");
        Path failing = fakeLlamaBench("echo 'loading model' >&2\necho 'error: failed to load model' >&2\nexit 3\n");
        CliRun run = CliRun.of("bench", "-m", model, "--vs", failing.toString(), "-p", "8", "-n", "0", "-r", "1");
        assertThat(run.code()).isEqualTo(1);
        assertThat(run.errLines()[run.errLines().length - 1])
                .isEqualTo("jacap: I/O error: llama-bench exited with 3: error: failed to load model");
        Path silent = fakeLlamaBench("echo 'no csv here'\n");
        CliRun none = CliRun.of("bench", "-m", model, "--vs", silent.toString(), "-p", "8", "-n", "0", "-r", "1");
        assertThat(none.errLines()[none.errLines().length - 1]).contains("llama-bench printed no CSV result");
        assertThat(CliRun.of("bench", "-m", model, "--vs", failing.toString(), "-o", "csv")
                        .errLines())
                .singleElement()
                .asString()
                .contains("--vs prints a Markdown table");
        assertThat(CliRun.of("bench", "-m", model, "--vs-rounds", "2").errLines())
                .singleElement()
                .asString()
                .contains("--vs-rounds needs --vs");
    }
}

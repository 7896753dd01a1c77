package org.jacap.bench.throughput;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jacap.bench.report.Csv;

/**
 * Runs llama.cpp's {@code llama-bench} for one test and reads its CSV ({@code -o csv}): the mean
 * and standard deviation of tokens/s over its repetitions. Only its output is read; nothing of
 * llama.cpp is linked or copied.
 */
public final class LlamaBench {
    /** llama-bench loads the model for each test: a minute is ample for the models it is compared on. */
    private static final long TIMEOUT_MINUTES = 30;

    private final Path executable;

    /** {@link IllegalArgumentException} (one line) when {@code executable} is not an executable file. */
    public LlamaBench(Path executable) {
        if (!Files.isRegularFile(executable) || !Files.isExecutable(executable)) {
            throw new IllegalArgumentException("--vs: " + executable + " is not an executable file (give the path"
                    + " of llama.cpp's llama-bench, e.g. build/bin/llama-bench)");
        }
        this.executable = executable;
    }

    /** Mean and standard deviation of tokens/s, as llama-bench reports them. */
    public record Result(double avgTs, double stddevTs) {}

    /** The command line for {@code test} on {@code model} with {@code threads} threads. */
    List<String> command(Path model, int threads, BenchCase test, int repetitions) {
        List<String> command = new ArrayList<>(List.of(
                executable.toString(),
                "-m",
                model.toString(),
                "-t",
                Integer.toString(threads),
                "-p",
                Integer.toString(test.promptTokens()),
                "-n",
                Integer.toString(test.genTokens()),
                "-r",
                Integer.toString(repetitions),
                "-o",
                "csv"));
        if (test.depth() > 0) { // only then: older llama-bench builds have no -d
            command.addAll(List.of("-d", Integer.toString(test.depth())));
        }
        return command;
    }

    /** Runs one test; {@link IOException} with one line (its last stderr line) when llama-bench fails. */
    public Result run(Path model, int threads, BenchCase test, int repetitions) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command(model, threads, test, repetitions));
        Path errFile = Files.createTempFile("llama-bench", ".err");
        try {
            pb.redirectError(errFile.toFile());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException("llama-bench did not finish in " + TIMEOUT_MINUTES + " minutes");
            }
            if (p.exitValue() != 0) {
                throw new IOException(
                        "llama-bench exited with " + p.exitValue() + ": " + lastLine(Files.readString(errFile)));
            }
            return parse(out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while llama-bench ran", e);
        } finally {
            Files.deleteIfExists(errFile);
        }
    }

    /** The first data row's {@code avg_ts} and {@code stddev_ts} from llama-bench's CSV. */
    static Result parse(String csv) throws IOException {
        List<String> lines = csv.lines().filter(l -> !l.isBlank()).toList();
        int header = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("avg_ts")) {
                header = i;
                break;
            }
        }
        if (header < 0 || header + 1 >= lines.size()) {
            throw new IOException("llama-bench printed no CSV result (no avg_ts column and row)");
        }
        List<String> names = fields(lines.get(header));
        List<String> values = fields(lines.get(header + 1));
        int avg = names.indexOf("avg_ts");
        int sd = names.indexOf("stddev_ts");
        if (sd < 0 || values.size() != names.size()) {
            throw new IOException("llama-bench's CSV has " + values.size() + " values for " + names.size()
                    + " columns, or no stddev_ts");
        }
        try {
            return new Result(Double.parseDouble(values.get(avg)), Double.parseDouble(values.get(sd)));
        } catch (NumberFormatException e) {
            throw new IOException(
                    "llama-bench's avg_ts/stddev_ts are not numbers: " + values.get(avg) + ", " + values.get(sd));
        }
    }

    /** The comma-separated fields of one CSV line ({@link Csv#parse}); a quote left open is an I/O error. */
    static List<String> fields(String line) throws IOException {
        try {
            return Csv.parse(line).getFirst();
        } catch (IllegalArgumentException e) {
            throw new IOException("llama-bench's CSV: " + e.getMessage());
        }
    }

    private static String lastLine(String text) {
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "(nothing on stderr)" : lines.getLast().strip();
    }
}

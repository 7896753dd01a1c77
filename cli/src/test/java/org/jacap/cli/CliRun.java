package org.jacap.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/** Runs {@code jacap} in-process with captured stdout and stderr. */
record CliRun(int code, String out, String err) {

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = JacapCli.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** Non-empty lines of stderr. */
    String[] errLines() {
        return err.lines().filter(l -> !l.isBlank()).toArray(String[]::new);
    }

    static Path fixtures() {
        Path dir = Path.of(System.getProperty("jacap.fixtures", "../shared/fixtures"))
                .toAbsolutePath()
                .normalize();
        assumeTrue(Files.isDirectory(dir), "fixtures folder not found at " + dir + " (set -Djacap.fixtures)");
        return dir;
    }

    static String stories() {
        Path p = fixtures().resolve("models/stories260K.gguf");
        assumeTrue(Files.isRegularFile(p), "fixture model missing: " + p);
        return p.toString();
    }
}

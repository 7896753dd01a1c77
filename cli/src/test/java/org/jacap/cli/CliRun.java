package org.jacap.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.jacap.testing.Fixtures;

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

    static String stories() {
        return Fixtures.model("stories260K.gguf").toString();
    }
}

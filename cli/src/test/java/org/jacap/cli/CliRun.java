package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.assertj.core.api.AbstractStringAssert;
import org.jacap.testing.Fixtures;

/** Runs {@code jacap} in-process with captured stdout and stderr. */
record CliRun(int code, String out, String err) {

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = JacapCli.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** Runs {@code jacap} with {@link #args}'s arguments. */
    static CliRun line(String template, String... values) {
        return of(args(template, values));
    }

    /**
     * The words of TEMPLATE (split at spaces), each {@code {}} replaced by the next of VALUES: a
     * command line reads as one, and paths or words with spaces come as values.
     */
    static String[] args(String template, String... values) {
        String[] words = template.split(" ");
        int next = 0;
        for (int i = 0; i < words.length; i++) {
            if (words[i].equals("{}")) {
                words[i] = values[next++];
            }
        }
        if (next != values.length) {
            throw new IllegalArgumentException(values.length + " values for " + next + " {} in: " + template);
        }
        return words;
    }

    /** Non-empty lines of stderr. */
    String[] errLines() {
        return err.lines().filter(l -> !l.isBlank()).toArray(String[]::new);
    }

    /**
     * Asserts a usage error of {@code jacap COMMAND}: exit 1 and one line on stderr, "jacap: …" ending
     * with "(see 'jacap COMMAND --help')"; returns that line's assertion for more.
     */
    AbstractStringAssert<?> assertUsageError(String command, String description) {
        assertThat(code).as(description).isEqualTo(1);
        return assertThat(errLines())
                .as(description)
                .singleElement()
                .asString()
                .startsWith("jacap: ")
                .endsWith("(see 'jacap " + command + " --help')");
    }

    static String stories() {
        return Fixtures.model("stories260K.gguf").toString();
    }
}

package org.jacap.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** The process's standard streams as UTF-8 writers (model output is UTF-8 whatever the locale says). */
final class StandardStreams {
    private StandardStreams() {}

    static PrintWriter stdout() {
        return new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), true);
    }

    static PrintWriter stderr() {
        return new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8), true);
    }

    /** Best guess whether the user watches stderr on a terminal (then progress can redraw in place). */
    static boolean interactive() {
        java.io.Console c = System.console();
        String term = System.getenv("TERM");
        return c != null && c.isTerminal() && (term == null || !term.equals("dumb"));
    }
}

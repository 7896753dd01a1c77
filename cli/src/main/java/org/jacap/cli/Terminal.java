package org.jacap.cli;

/** Whether a person is watching: then progress can be redrawn in place and prompts shown. */
final class Terminal {
    private Terminal() {}

    /** Best guess from the JVM's console (stdin and stdout on a terminal) and {@code TERM}. */
    static boolean interactive() {
        java.io.Console c = System.console();
        String term = System.getenv("TERM");
        return c != null && c.isTerminal() && (term == null || !term.equals("dumb"));
    }
}

package org.jacap.cli;

import java.io.Closeable;

/** Where {@code jacap chat} reads the user's lines: a line editor on a terminal, or plain stdin. */
sealed interface ChatInput extends Closeable permits LineEditorInput, PlainInput {

    /** The next line, or null at the end of input. */
    String readLine(String prompt);

    /** Runs {@code action} whenever the user presses Ctrl-C while a reply is generated (where that can be caught). */
    void onInterrupt(Runnable action);
}

package org.jacap.cli;

import java.io.IOException;
import java.nio.file.Path;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * A terminal line editor (JLine): arrows, Home/End, Ctrl-R search and a history kept in
 * {@code history} across runs. Ctrl-C while typing drops the line; Ctrl-C while a reply is
 * generated runs the interrupt action instead of ending the program; Ctrl-D quits.
 */
final class LineEditorInput implements ChatInput {
    private final Terminal terminal;
    private final LineReader reader;

    LineEditorInput(Path history) throws IOException {
        // FFM or exec (stty) providers only: no JNI library gets loaded
        this.terminal = TerminalBuilder.builder()
                .system(true)
                .providers("ffm,exec")
                .nativeSignals(true)
                .build();
        this.reader = LineReaderBuilder.builder()
                .terminal(terminal)
                .appName("jacap")
                .variable(LineReader.HISTORY_FILE, history)
                .option(LineReader.Option.HISTORY_IGNORE_DUPS, true)
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true) // '!' is text, not history
                .build();
    }

    @Override
    public String readLine(String prompt) {
        while (true) {
            try {
                return reader.readLine(prompt);
            } catch (UserInterruptException e) {
                terminal.writer().println("(Ctrl-D or /exit to quit)");
                terminal.flush();
            } catch (EndOfFileException e) {
                return null;
            }
        }
    }

    @Override
    public void onInterrupt(Runnable action) {
        // the reader installs its own handler while it reads and puts this one back afterwards
        terminal.handle(Terminal.Signal.INT, signal -> action.run());
    }

    @Override
    public void close() throws IOException {
        try {
            reader.getHistory().save();
        } finally {
            terminal.close();
        }
    }
}

package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;

/**
 * Turns every failure into one clear line on stderr and a non-zero exit code. Errors a user can
 * cause get their own message; anything else is an internal error (stack trace with JACAP_DEBUG=1).
 * Messages may quote text from a model file, so control characters are escaped (no terminal
 * escape sequence gets through) and the line stays one line.
 */
final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {
    static final int USER_ERROR = 1;
    static final int INTERNAL_ERROR = 70;
    /** What a shell reports for a process ended by SIGPIPE (128 + 13): stdout's reader went away. */
    static final int BROKEN_PIPE = 141;

    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, CommandLine.ParseResult parsed) {
        return report(ex, cl.getErr());
    }

    /**
     * Prints the one line for {@code thrown} and returns the exit code. picocli hands only
     * {@link Exception}s to the handler above; {@link JacapCli} passes the {@link Error}s here too.
     */
    static int report(Throwable thrown, PrintWriter err) {
        Throwable t = thrown;
        if (t instanceof UncheckedIOException u && u.getCause() != null) {
            t = u.getCause();
        }
        String message;
        int code = USER_ERROR;
        if (t instanceof NoSuchFileException nf) {
            message = "file not found: " + nf.getFile();
        } else if (t instanceof IOException io) {
            message = "I/O error: " + io.getMessage();
        } else if (isUserError(t)) {
            message = t.getMessage();
        } else if (t instanceof OutOfMemoryError) {
            message = "out of memory: raise -Xmx (JAVA_OPTS) or use a smaller context";
        } else if (t instanceof StackOverflowError) {
            message = "stack overflow: raise -Xss (JAVA_OPTS)";
        } else if (t instanceof InternalError && String.valueOf(t.getMessage()).contains("memory access")) {
            message = "the model file could not be read: was it truncated or replaced while in use?";
        } else {
            message = "internal error: " + t;
            code = INTERNAL_ERROR;
        }
        err.println("jacap: " + ValueText.escaped(String.valueOf(message)));
        if (System.getenv("JACAP_DEBUG") != null) {
            t.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    private static boolean isUserError(Throwable t) {
        return t instanceof org.jacap.JacapException
                || t instanceof org.jacap.gguf.GgufFormatException
                || t instanceof IllegalArgumentException;
    }
}

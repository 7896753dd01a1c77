package org.jacap.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;

/**
 * Turns every failure into one clear line on stderr and a non-zero exit code. Errors a user can
 * cause get their own message; anything else is an internal error (stack trace with JACAP_DEBUG=1).
 */
final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {
    static final int USER_ERROR = 1;
    static final int INTERNAL_ERROR = 70;

    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, CommandLine.ParseResult parsed) {
        Throwable t = ex;
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
        } else {
            message = "internal error: " + t;
            code = INTERNAL_ERROR;
        }
        cl.getErr().println("jacap: " + message);
        if (System.getenv("JACAP_DEBUG") != null) {
            t.printStackTrace(cl.getErr());
        }
        return code;
    }

    private static boolean isUserError(Throwable t) {
        return t instanceof org.jacap.JacapException
                || t instanceof org.jacap.gguf.GgufFormatException
                || t instanceof IllegalArgumentException;
    }
}

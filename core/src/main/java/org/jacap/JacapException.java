package org.jacap;

/**
 * An error the user can cause and fix (unknown architecture, missing tensor, context overflow,
 * unknown policy, bad parameter). Its message is written for the user; the CLI prints it as one
 * line and exits non-zero.
 */
public class JacapException extends RuntimeException {
    public JacapException(String message) {
        super(message);
    }

    public JacapException(String message, Throwable cause) {
        super(message, cause);
    }
}

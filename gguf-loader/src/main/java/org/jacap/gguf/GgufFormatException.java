package org.jacap.gguf;

/** A malformed GGUF file: the message names the byte offset and what was expected there. */
public class GgufFormatException extends RuntimeException {
    private final long offset;

    public GgufFormatException(long offset, String message) {
        super("bad GGUF at byte " + offset + ": " + message);
        this.offset = offset;
    }

    public GgufFormatException(String message) {
        super(message);
        this.offset = -1;
    }

    /** Byte offset of the problem, or -1 when it is not tied to one place. */
    public long offset() {
        return offset;
    }
}

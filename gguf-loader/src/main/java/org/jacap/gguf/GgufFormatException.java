package org.jacap.gguf;

import java.nio.file.Path;

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

    private GgufFormatException(String message, long offset, GgufFormatException cause) {
        super(message, cause);
        this.offset = offset;
    }

    /** Byte offset of the problem, or -1 when it is not tied to one place. */
    public long offset() {
        return offset;
    }

    /** The same problem with the file name in front, so a one-line report says which file is bad. */
    public GgufFormatException inFile(Path file) {
        return new GgufFormatException(file + ": " + getMessage(), offset, this);
    }
}

package org.jacap.gguf;

/** A metadata key is missing or holds a value of the wrong type; the message names the key. */
public final class GgufMetadataException extends GgufFormatException {
    public GgufMetadataException(String message) {
        super(message);
    }
}

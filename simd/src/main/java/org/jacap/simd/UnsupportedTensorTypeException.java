package org.jacap.simd;

import org.jacap.gguf.GgmlType;

/** A tensor type that has no kernel (or no quantizer) in this build; thrown when binding, never mid-forward. */
public final class UnsupportedTensorTypeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient GgmlType type;

    public UnsupportedTensorTypeException(GgmlType type, String what) {
        super("tensor type " + type + " is not supported: " + what);
        this.type = type;
    }

    /** The offending type. */
    public GgmlType type() {
        return type;
    }
}

package org.jacap.kv;

import org.jacap.JacapException;

/**
 * How the KV cache stores keys or values (llama.cpp's {@code --cache-type-k/-v}). Attention and
 * eviction read every type back as float through {@link KvRows#read}, one method per type.
 */
public enum KvStorage {
    /** 4 bytes a value, exact. */
    F32,
    /** 2 bytes a value: each value rounded with {@link Float#floatToFloat16} when written (llama.cpp's default). */
    F16,
    /** GGML's Q8_0: blocks of 32 values as 32 signed bytes and one f16 scale (34 bytes a block). */
    Q8_0;

    /** Values per Q8_0 block. */
    public static final int Q8_0_BLOCK = 32;

    /** Bytes one row of {@code dim} values takes. */
    public long bytesPerRow(int dim) {
        return switch (this) {
            case F32 -> 4L * dim;
            case F16 -> 2L * dim;
            case Q8_0 -> (long) (dim / Q8_0_BLOCK) * (Q8_0_BLOCK + 2);
        };
    }

    /**
     * Fails unless rows of {@code dim} values can use this type.
     *
     * @throws JacapException for Q8_0 when {@code dim} is not a multiple of 32
     */
    public void checkDim(int dim, String what) {
        if (this == Q8_0 && dim % Q8_0_BLOCK != 0) {
            throw new JacapException("a q8_0 KV cache needs " + what + " head sizes that are multiples of " + Q8_0_BLOCK
                    + "; this model's are " + dim);
        }
    }

    /** The lower-case name llama.cpp uses ({@code f32}, {@code f16}, {@code q8_0}). */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Empty storage for {@code capacity} rows of {@code dim} values. */
    KvRows rows(int dim, int capacity) {
        checkDim(dim, "its");
        return switch (this) {
            case F32 -> new F32Rows(dim, capacity);
            case F16 -> new F16Rows(dim, capacity);
            case Q8_0 -> new Q8_0Rows(dim, capacity);
        };
    }
}

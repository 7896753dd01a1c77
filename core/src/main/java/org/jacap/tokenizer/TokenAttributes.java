package org.jacap.tokenizer;

/**
 * Per-token attribute bits (llama.cpp's {@code llama_token_attr}), derived from the GGUF
 * {@code tokenizer.ggml.token_type} array and adjusted by the special-token rules.
 */
final class TokenAttributes {
    static final int UNDEFINED = 0;
    static final int UNKNOWN = 1;
    static final int UNUSED = 1 << 1;
    static final int NORMAL = 1 << 2;
    static final int CONTROL = 1 << 3;
    static final int USER_DEFINED = 1 << 4;
    static final int BYTE = 1 << 5;
    static final int LSTRIP = 1 << 7;
    static final int RSTRIP = 1 << 8;

    private TokenAttributes() {}

    /** GGUF token type (0 undefined, 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte). */
    static int fromGgufType(int type) {
        return switch (type) {
            case 1 -> NORMAL;
            case 2 -> UNKNOWN;
            case 3 -> CONTROL;
            case 4 -> USER_DEFINED;
            case 5 -> UNUSED;
            case 6 -> BYTE;
            default -> UNDEFINED;
        };
    }
}

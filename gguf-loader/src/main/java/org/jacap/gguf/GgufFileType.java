package org.jacap.gguf;

/**
 * llama.cpp's {@code general.file_type} (its {@code llama_ftype}): the quantization recipe a model
 * file was made with, e.g. Q4_K_M. Most tensors carry the main type; norms stay F32 and some
 * tensors get a larger type, so the per-tensor types tell the whole story.
 */
public enum GgufFileType {
    ALL_F32(0, "F32"),
    MOSTLY_F16(1, "F16"),
    MOSTLY_Q4_0(2, "Q4_0"),
    MOSTLY_Q4_1(3, "Q4_1"),
    MOSTLY_Q4_1_SOME_F16(4, "Q4_1_SOME_F16"),
    MOSTLY_Q8_0(7, "Q8_0"),
    MOSTLY_Q5_0(8, "Q5_0"),
    MOSTLY_Q5_1(9, "Q5_1"),
    MOSTLY_Q2_K(10, "Q2_K"),
    MOSTLY_Q3_K_S(11, "Q3_K_S"),
    MOSTLY_Q3_K_M(12, "Q3_K_M"),
    MOSTLY_Q3_K_L(13, "Q3_K_L"),
    MOSTLY_Q4_K_S(14, "Q4_K_S"),
    MOSTLY_Q4_K_M(15, "Q4_K_M"),
    MOSTLY_Q5_K_S(16, "Q5_K_S"),
    MOSTLY_Q5_K_M(17, "Q5_K_M"),
    MOSTLY_Q6_K(18, "Q6_K"),
    MOSTLY_IQ2_XXS(19, "IQ2_XXS"),
    MOSTLY_IQ2_XS(20, "IQ2_XS"),
    MOSTLY_Q2_K_S(21, "Q2_K_S"),
    MOSTLY_IQ3_XS(22, "IQ3_XS"),
    MOSTLY_IQ3_XXS(23, "IQ3_XXS"),
    MOSTLY_IQ1_S(24, "IQ1_S"),
    MOSTLY_IQ4_NL(25, "IQ4_NL"),
    MOSTLY_IQ3_S(26, "IQ3_S"),
    MOSTLY_IQ3_M(27, "IQ3_M"),
    MOSTLY_IQ2_S(28, "IQ2_S"),
    MOSTLY_IQ2_M(29, "IQ2_M"),
    MOSTLY_IQ4_XS(30, "IQ4_XS"),
    MOSTLY_IQ1_M(31, "IQ1_M"),
    MOSTLY_BF16(32, "BF16"),
    MOSTLY_TQ1_0(36, "TQ1_0"),
    MOSTLY_TQ2_0(37, "TQ2_0"),
    MOSTLY_MXFP4_MOE(38, "MXFP4_MOE");

    private final int id;
    private final String label;

    GgufFileType(int id, String label) {
        this.id = id;
        this.label = label;
    }

    /** The value stored in {@code general.file_type}. */
    public int id() {
        return id;
    }

    /** The name llama-quantize uses, e.g. {@code Q4_K_M}. */
    public String label() {
        return label;
    }

    /** The file type with this id, or null when unknown. */
    public static GgufFileType fromId(long id) {
        for (GgufFileType t : values()) {
            if (t.id == id) {
                return t;
            }
        }
        return null;
    }
}

package org.jacap.bench.synthetic;

import org.jacap.gguf.GgmlType;

/**
 * The weight type of a synthetic model, with llama.cpp's choices for the tensors it treats
 * specially (llama-quantize's llama_tensor_get_type):
 * <ul>
 *   <li>norms and RoPE factors stay F32;</li>
 *   <li>the token embedding, which is also the output matrix (tied), is typed as llama.cpp types
 *       the output: Q6_K unless the file is Q8_0 (stays Q8_0) or F16 (stays F16);</li>
 *   <li>{@code q4_k} is Q4_K_M: Q4_K, with attn_v and ffn_down raised to Q6_K on the layers
 *       llama.cpp's use_more_bits picks (first and last eighth, and every third in between).</li>
 * </ul>
 */
public enum SyntheticType {
    Q8_0("q8_0", GgmlType.Q8_0, GgmlType.Q8_0, 7),
    Q4_0("q4_0", GgmlType.Q4_0, GgmlType.Q6_K, 2),
    Q4_K("q4_k", GgmlType.Q4_K, GgmlType.Q6_K, 15),
    F16("f16", GgmlType.F16, GgmlType.F16, 1);

    private final String id;
    private final GgmlType weights;
    private final GgmlType output;
    private final int fileType;

    SyntheticType(String id, GgmlType weights, GgmlType output, int fileType) {
        this.id = id;
        this.weights = weights;
        this.output = output;
        this.fileType = fileType;
    }

    public static SyntheticType parse(String name) {
        for (SyntheticType t : values()) {
            if (t.id.equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown synthetic type '" + name + "' (expected q8_0, q4_0, q4_k or f16)");
    }

    public String id() {
        return id;
    }

    /** GGUF general.file_type (llama_ftype): 7 Q8_0, 2 Q4_0, 15 Q4_K_M, 1 F16. */
    public int fileType() {
        return fileType;
    }

    /** Type of the tied token-embedding / output matrix. */
    public GgmlType outputType() {
        return output;
    }

    /** Type of a layer's 2-D weight ({@code role} as in "attn_v", "ffn_down"). */
    public GgmlType layerType(String role, int layer, int layers) {
        if (this == Q4_K && (role.equals("attn_v") || role.equals("ffn_down")) && useMoreBits(layer, layers)) {
            return GgmlType.Q6_K;
        }
        return weights;
    }

    /** llama.cpp's use_more_bits(i, n): the first and last eighth of the layers and every third in between. */
    static boolean useMoreBits(int layer, int layers) {
        return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
    }

    @Override
    public String toString() {
        return id;
    }
}

package org.jacap.simd;

/** How {@link MatMul} treats the activation operand of a matrix product. */
public enum Precision {
    /**
     * Float activations as given; weights dequantized exactly; all products and sums in f32.
     * Matches llama.cpp run on the same weights dequantized to F32 (the {@code .f32.json} references).
     */
    F32,
    /**
     * llama.cpp's CPU convention: activations first converted to the weight type's
     * {@link VecDotType} (Q8_0 / Q8_1 blocks of 32, Q8_K blocks of 256, F16, BF16, or F32 unchanged).
     * Matches the native llama.cpp references. The default.
     */
    NATIVE
}

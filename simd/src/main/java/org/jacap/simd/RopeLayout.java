package org.jacap.simd;

/** Which two channels of a head one RoPE frequency rotates. */
public enum RopeLayout {
    /** Adjacent pairs (2i, 2i+1): llama.cpp {@code LLAMA_ROPE_TYPE_NORM}, GGUF llama/mistral. */
    NORMAL,
    /** Halves (i, i + ropeDim/2): HF {@code rotate_half}, llama.cpp NEOX; qwen2/qwen3/gemma3/phi3. */
    NEOX;

    /** First channel of frequency i (0 ≤ i &lt; ropeDim/2). */
    public int first(int i, int ropeDim) {
        return this == NORMAL ? 2 * i : i;
    }

    /** Second channel of frequency i. */
    public int second(int i, int ropeDim) {
        return this == NORMAL ? 2 * i + 1 : i + ropeDim / 2;
    }
}

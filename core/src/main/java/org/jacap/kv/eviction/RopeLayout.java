package org.jacap.kv.eviction;

/** How RoPE pairs the dimensions of a head: which two coordinates rotate together. */
public enum RopeLayout {
    /** llama.cpp NORM mode (GGUF Llama): adjacent pairs {@code (2j, 2j+1)}. */
    NORMAL,
    /** HF {@code rotate_half} / llama.cpp NEOX: halves {@code (j, j + d/2)}. */
    NEOX;

    /** First coordinate of pair {@code j} in a head of dimension {@code headDim}. */
    public int first(int j, int headDim) {
        return this == NORMAL ? 2 * j : j;
    }

    /** Second coordinate of pair {@code j}. */
    public int second(int j, int headDim) {
        return this == NORMAL ? 2 * j + 1 : j + headDim / 2;
    }
}

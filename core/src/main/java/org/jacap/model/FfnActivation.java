package org.jacap.model;

/** The gate activation of the gated feed-forward block: {@code down(act(gate(x)) · up(x))}. */
public enum FfnActivation {
    /** SwiGLU: SiLU gate (Llama, Qwen, Phi-3). */
    SILU,
    /** GeGLU: GELU gate, tanh approximation (Gemma). */
    GELU_TANH
}

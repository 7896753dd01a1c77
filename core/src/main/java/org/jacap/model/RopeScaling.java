package org.jacap.model;

/**
 * RoPE context scaling from {@code {arch}.rope.scaling.*}. Only {@code none} and {@code linear}
 * are supported; linear scaling divides every rotation angle by {@code factor}.
 *
 * @param type                  {@code none} or {@code linear}
 * @param factor                the angle divisor (1 for none)
 * @param originalContextLength {@code rope.scaling.original_context_length}, or 0 when absent
 */
public record RopeScaling(String type, float factor, int originalContextLength) {
    public static final RopeScaling NONE = new RopeScaling("none", 1f, 0);

    /** Multiplier applied to positions before rotation (llama.cpp's {@code freq_scale}). */
    public float frequencyScale() {
        return 1f / factor;
    }
}

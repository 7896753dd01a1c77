package org.jacap.simd;

import java.util.Objects;

/**
 * GELU as llama.cpp's CPU backend computes it: the input rounded to F16 indexes a table of 65,536
 * F16 results ({@code GGML_GELU_FP16}), with 0 below −10 and the identity above 10. The F16
 * rounding of both input and output is why an exact GELU drifts from llama.cpp by ~1e-3 relative
 * per value (Gemma's feed-forward), so the native precision path uses this table.
 */
public final class GeluTable {
    private GeluTable() {}

    private static final float SQRT_2_OVER_PI = 0.79788456080286535587989211986876f;
    private static final float GELU_COEF_A = 0.044715f;
    private static final float[] TABLE = build();

    private static float[] build() {
        float[] t = new float[1 << 16];
        for (int h = 0; h < t.length; h++) {
            float x = Float.float16ToFloat((short) h);
            float g = 0.5f * x * (1.0f + (float) Math.tanh(SQRT_2_OVER_PI * x * (1.0f + GELU_COEF_A * x * x)));
            t[h] = Float.float16ToFloat(Float.floatToFloat16(g));
        }
        return t;
    }

    /** GELU (tanh form) of one value through the F16 table. */
    public static float gelu(float x) {
        if (x <= -10f) {
            return 0f;
        }
        if (x >= 10f) {
            return x;
        }
        return TABLE[Float.floatToFloat16(x) & 0xFFFF];
    }

    /** gate ← gelu(gate)·up through the table (llama.cpp's {@code ggml_vec_geglu_f32}). */
    public static void geglu(float[] gate, int go, float[] up, int uo, int n) {
        Objects.checkFromIndexSize(go, n, gate.length);
        Objects.checkFromIndexSize(uo, n, up.length);
        for (int i = 0; i < n; i++) {
            gate[go + i] = gelu(gate[go + i]) * up[uo + i];
        }
    }

    /** x ← gelu(x) through the table. */
    public static void gelu(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        for (int i = 0; i < n; i++) {
            x[off + i] = gelu(x[off + i]);
        }
    }
}

package org.jacap.simd;

import static org.jacap.simd.VectorOps.F_PREFERRED;

import java.util.Objects;
import jdk.incubator.vector.FloatVector;

/**
 * Element-wise activations of the feed-forward block, in place on flat arrays. Each vector method
 * has a scalar twin with the suffix {@code Scalar}, written from the textbook formula in double
 * (and, for GELU, with {@code tanh} rather than the logistic identity the vector code uses).
 */
public final class Activations {

    /** √(2/π), the GELU tanh-approximation constant. */
    private static final float SQRT_2_OVER_PI = 0.7978845608028654f;

    private static final float GELU_COEF = 0.044715f;

    private Activations() {}

    /** x ← x·σ(x) = x / (1 + e^(−x)) (SiLU, a.k.a. swish). */
    public static void silu(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        for (; i < bound; i += F_PREFERRED.length()) {
            silu(FloatVector.fromArray(F_PREFERRED, x, off + i)).intoArray(x, off + i);
        }
        for (; i < n; i++) {
            x[off + i] = siluOf(x[off + i]);
        }
    }

    /** x ← 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))) (GELU, tanh form). */
    public static void gelu(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        for (; i < bound; i += F_PREFERRED.length()) {
            gelu(FloatVector.fromArray(F_PREFERRED, x, off + i)).intoArray(x, off + i);
        }
        for (; i < n; i++) {
            x[off + i] = geluOf(x[off + i]);
        }
    }

    /** gate ← silu(gate)·up (the SwiGLU gated feed-forward of Llama, Qwen, Mistral). */
    public static void swiglu(float[] gate, int go, float[] up, int uo, int n) {
        Objects.checkFromIndexSize(go, n, gate.length);
        Objects.checkFromIndexSize(uo, n, up.length);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        for (; i < bound; i += F_PREFERRED.length()) {
            silu(FloatVector.fromArray(F_PREFERRED, gate, go + i))
                    .mul(FloatVector.fromArray(F_PREFERRED, up, uo + i))
                    .intoArray(gate, go + i);
        }
        for (; i < n; i++) {
            gate[go + i] = siluOf(gate[go + i]) * up[uo + i];
        }
    }

    /** gate ← gelu(gate)·up (the GeGLU feed-forward of Gemma). */
    public static void geglu(float[] gate, int go, float[] up, int uo, int n) {
        Objects.checkFromIndexSize(go, n, gate.length);
        Objects.checkFromIndexSize(uo, n, up.length);
        int i = 0;
        int bound = F_PREFERRED.loopBound(n);
        for (; i < bound; i += F_PREFERRED.length()) {
            gelu(FloatVector.fromArray(F_PREFERRED, gate, go + i))
                    .mul(FloatVector.fromArray(F_PREFERRED, up, uo + i))
                    .intoArray(gate, go + i);
        }
        for (; i < n; i++) {
            gate[go + i] = geluOf(gate[go + i]) * up[uo + i];
        }
    }

    private static FloatVector silu(FloatVector v) {
        return v.div(VectorMath.exp(v.neg()).add(1f));
    }

    /** 0.5·(1 + tanh(u)) = 1 / (1 + e^(−2u)): GELU needs only exp. */
    private static FloatVector gelu(FloatVector v) {
        FloatVector inner = v.mul(v).fma(GELU_COEF, 1f).mul(v).mul(-2f * SQRT_2_OVER_PI);
        return v.div(VectorMath.exp(inner).add(1f));
    }

    /** The tail lanes use the same float formula as the vector lanes. */
    private static float siluOf(float x) {
        return x / (1f + (float) Math.exp(-x));
    }

    private static float geluOf(float x) {
        float inner = -2f * SQRT_2_OVER_PI * (x * (1f + GELU_COEF * x * x));
        return x / (1f + (float) Math.exp(inner));
    }

    // ---------------------------------------------------------------- scalar twins

    public static void siluScalar(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        for (int i = 0; i < n; i++) {
            double v = x[off + i];
            x[off + i] = (float) (v / (1 + Math.exp(-v)));
        }
    }

    public static void geluScalar(float[] x, int off, int n) {
        Objects.checkFromIndexSize(off, n, x.length);
        for (int i = 0; i < n; i++) {
            x[off + i] = (float) geluDouble(x[off + i]);
        }
    }

    public static void swigluScalar(float[] gate, int go, float[] up, int uo, int n) {
        Objects.checkFromIndexSize(go, n, gate.length);
        Objects.checkFromIndexSize(uo, n, up.length);
        for (int i = 0; i < n; i++) {
            double v = gate[go + i];
            gate[go + i] = (float) (v / (1 + Math.exp(-v)) * up[uo + i]);
        }
    }

    public static void gegluScalar(float[] gate, int go, float[] up, int uo, int n) {
        Objects.checkFromIndexSize(go, n, gate.length);
        Objects.checkFromIndexSize(uo, n, up.length);
        for (int i = 0; i < n; i++) {
            gate[go + i] = (float) (geluDouble(gate[go + i]) * up[uo + i]);
        }
    }

    private static double geluDouble(double v) {
        return 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v)));
    }
}

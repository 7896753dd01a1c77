package org.jacap.simd;

import static org.jacap.simd.Layouts.F;

import jdk.incubator.vector.FloatVector;

/**
 * The shared float loops every weight type runs through once its blocks are decoded: a dot
 * product and the register tiles of the matrix product. Each has a scalar twin.
 *
 * <p>Tiles compute {@code out[o + t*oStride + r] (+)= Σ_k w[wOff + r*wStride + k] * x[xOff + t*xStride + k]}
 * for R rows and T tokens. The 4x3 tile keeps 12 accumulators, 3 activation vectors and one
 * weight vector in the 16 AVX2 registers: 12 FMAs per 7 loads.
 */
final class FloatLoops {
    private FloatLoops() {}

    /** Σ a[aOff+i]·b[bOff+i] over {@code n} elements. */
    static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        FloatVector s0 = FloatVector.zero(F);
        FloatVector s1 = FloatVector.zero(F);
        FloatVector s2 = FloatVector.zero(F);
        FloatVector s3 = FloatVector.zero(F);
        int i = 0;
        for (int bound = n & ~31; i < bound; i += 32) {
            s0 = FloatVector.fromArray(F, a, aOff + i).fma(FloatVector.fromArray(F, b, bOff + i), s0);
            s1 = FloatVector.fromArray(F, a, aOff + i + 8).fma(FloatVector.fromArray(F, b, bOff + i + 8), s1);
            s2 = FloatVector.fromArray(F, a, aOff + i + 16).fma(FloatVector.fromArray(F, b, bOff + i + 16), s2);
            s3 = FloatVector.fromArray(F, a, aOff + i + 24).fma(FloatVector.fromArray(F, b, bOff + i + 24), s3);
        }
        for (int bound = n & ~7; i < bound; i += 8) {
            s0 = FloatVector.fromArray(F, a, aOff + i).fma(FloatVector.fromArray(F, b, bOff + i), s0);
        }
        float sum = s0.add(s1).add(s2.add(s3)).reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
        for (; i < n; i++) {
            sum = Math.fma(a[aOff + i], b[bOff + i], sum);
        }
        return sum;
    }

    /** Scalar twin of {@link #dot}. */
    static float dotScalar(float[] a, int aOff, float[] b, int bOff, int n) {
        float sum = 0f;
        for (int i = 0; i < n; i++) {
            sum += a[aOff + i] * b[bOff + i];
        }
        return sum;
    }

    private static void put(float[] out, int idx, float v, boolean add) {
        out[idx] = add ? out[idx] + v : v;
    }

    /** 4 rows x 3 tokens. */
    static void tile4x3(float[] w, int wOff, int wStride, float[] x, int xOff, int xStride, int n,
                        float[] out, int o, int oStride, boolean add) {
        FloatVector a00 = FloatVector.zero(F), a01 = FloatVector.zero(F), a02 = FloatVector.zero(F);
        FloatVector a10 = FloatVector.zero(F), a11 = FloatVector.zero(F), a12 = FloatVector.zero(F);
        FloatVector a20 = FloatVector.zero(F), a21 = FloatVector.zero(F), a22 = FloatVector.zero(F);
        FloatVector a30 = FloatVector.zero(F), a31 = FloatVector.zero(F), a32 = FloatVector.zero(F);
        int w0 = wOff, w1 = wOff + wStride, w2 = wOff + 2 * wStride, w3 = wOff + 3 * wStride;
        int x0 = xOff, x1 = xOff + xStride, x2 = xOff + 2 * xStride;
        int k = 0;
        for (int bound = n & ~7; k < bound; k += 8) {
            FloatVector v0 = FloatVector.fromArray(F, x, x0 + k);
            FloatVector v1 = FloatVector.fromArray(F, x, x1 + k);
            FloatVector v2 = FloatVector.fromArray(F, x, x2 + k);
            FloatVector r = FloatVector.fromArray(F, w, w0 + k);
            a00 = r.fma(v0, a00);
            a01 = r.fma(v1, a01);
            a02 = r.fma(v2, a02);
            r = FloatVector.fromArray(F, w, w1 + k);
            a10 = r.fma(v0, a10);
            a11 = r.fma(v1, a11);
            a12 = r.fma(v2, a12);
            r = FloatVector.fromArray(F, w, w2 + k);
            a20 = r.fma(v0, a20);
            a21 = r.fma(v1, a21);
            a22 = r.fma(v2, a22);
            r = FloatVector.fromArray(F, w, w3 + k);
            a30 = r.fma(v0, a30);
            a31 = r.fma(v1, a31);
            a32 = r.fma(v2, a32);
        }
        float s00 = sum(a00), s01 = sum(a01), s02 = sum(a02);
        float s10 = sum(a10), s11 = sum(a11), s12 = sum(a12);
        float s20 = sum(a20), s21 = sum(a21), s22 = sum(a22);
        float s30 = sum(a30), s31 = sum(a31), s32 = sum(a32);
        for (; k < n; k++) {
            float v0 = x[x0 + k], v1 = x[x1 + k], v2 = x[x2 + k];
            float r0 = w[w0 + k], r1 = w[w1 + k], r2 = w[w2 + k], r3 = w[w3 + k];
            s00 = Math.fma(r0, v0, s00); s01 = Math.fma(r0, v1, s01); s02 = Math.fma(r0, v2, s02);
            s10 = Math.fma(r1, v0, s10); s11 = Math.fma(r1, v1, s11); s12 = Math.fma(r1, v2, s12);
            s20 = Math.fma(r2, v0, s20); s21 = Math.fma(r2, v1, s21); s22 = Math.fma(r2, v2, s22);
            s30 = Math.fma(r3, v0, s30); s31 = Math.fma(r3, v1, s31); s32 = Math.fma(r3, v2, s32);
        }
        put(out, o, s00, add); put(out, o + 1, s10, add); put(out, o + 2, s20, add); put(out, o + 3, s30, add);
        o += oStride;
        put(out, o, s01, add); put(out, o + 1, s11, add); put(out, o + 2, s21, add); put(out, o + 3, s31, add);
        o += oStride;
        put(out, o, s02, add); put(out, o + 1, s12, add); put(out, o + 2, s22, add); put(out, o + 3, s32, add);
    }

    /** 4 rows x 1 token: the matrix-vector tile. */
    static void tile4x1(float[] w, int wOff, int wStride, float[] x, int xOff, int n,
                        float[] out, int o, boolean add) {
        FloatVector a0 = FloatVector.zero(F), a1 = FloatVector.zero(F), a2 = FloatVector.zero(F), a3 = FloatVector.zero(F);
        FloatVector b0 = FloatVector.zero(F), b1 = FloatVector.zero(F), b2 = FloatVector.zero(F), b3 = FloatVector.zero(F);
        int w0 = wOff, w1 = wOff + wStride, w2 = wOff + 2 * wStride, w3 = wOff + 3 * wStride;
        int k = 0;
        for (int bound = n & ~15; k < bound; k += 16) {
            FloatVector v = FloatVector.fromArray(F, x, xOff + k);
            FloatVector u = FloatVector.fromArray(F, x, xOff + k + 8);
            a0 = FloatVector.fromArray(F, w, w0 + k).fma(v, a0);
            a1 = FloatVector.fromArray(F, w, w1 + k).fma(v, a1);
            a2 = FloatVector.fromArray(F, w, w2 + k).fma(v, a2);
            a3 = FloatVector.fromArray(F, w, w3 + k).fma(v, a3);
            b0 = FloatVector.fromArray(F, w, w0 + k + 8).fma(u, b0);
            b1 = FloatVector.fromArray(F, w, w1 + k + 8).fma(u, b1);
            b2 = FloatVector.fromArray(F, w, w2 + k + 8).fma(u, b2);
            b3 = FloatVector.fromArray(F, w, w3 + k + 8).fma(u, b3);
        }
        for (int bound = n & ~7; k < bound; k += 8) {
            FloatVector v = FloatVector.fromArray(F, x, xOff + k);
            a0 = FloatVector.fromArray(F, w, w0 + k).fma(v, a0);
            a1 = FloatVector.fromArray(F, w, w1 + k).fma(v, a1);
            a2 = FloatVector.fromArray(F, w, w2 + k).fma(v, a2);
            a3 = FloatVector.fromArray(F, w, w3 + k).fma(v, a3);
        }
        float s0 = sum(a0.add(b0)), s1 = sum(a1.add(b1)), s2 = sum(a2.add(b2)), s3 = sum(a3.add(b3));
        for (; k < n; k++) {
            float v = x[xOff + k];
            s0 = Math.fma(w[w0 + k], v, s0);
            s1 = Math.fma(w[w1 + k], v, s1);
            s2 = Math.fma(w[w2 + k], v, s2);
            s3 = Math.fma(w[w3 + k], v, s3);
        }
        put(out, o, s0, add); put(out, o + 1, s1, add); put(out, o + 2, s2, add); put(out, o + 3, s3, add);
    }

    /** 1 row x 3 tokens. */
    static void tile1x3(float[] w, int wOff, float[] x, int xOff, int xStride, int n,
                        float[] out, int o, int oStride, boolean add) {
        FloatVector a0 = FloatVector.zero(F), a1 = FloatVector.zero(F), a2 = FloatVector.zero(F);
        int x0 = xOff, x1 = xOff + xStride, x2 = xOff + 2 * xStride;
        int k = 0;
        for (int bound = n & ~7; k < bound; k += 8) {
            FloatVector r = FloatVector.fromArray(F, w, wOff + k);
            a0 = r.fma(FloatVector.fromArray(F, x, x0 + k), a0);
            a1 = r.fma(FloatVector.fromArray(F, x, x1 + k), a1);
            a2 = r.fma(FloatVector.fromArray(F, x, x2 + k), a2);
        }
        float s0 = sum(a0), s1 = sum(a1), s2 = sum(a2);
        for (; k < n; k++) {
            float r = w[wOff + k];
            s0 = Math.fma(r, x[x0 + k], s0);
            s1 = Math.fma(r, x[x1 + k], s1);
            s2 = Math.fma(r, x[x2 + k], s2);
        }
        put(out, o, s0, add);
        put(out, o + oStride, s1, add);
        put(out, o + 2 * oStride, s2, add);
    }

    /** 1 row x 1 token. */
    static void tile1x1(float[] w, int wOff, float[] x, int xOff, int n, float[] out, int o, boolean add) {
        put(out, o, dot(w, wOff, x, xOff, n), add);
    }

    /** Scalar twin of every tile: {@code rows x tokens} of plain dot products. */
    static void tileScalar(int rows, int tokens, float[] w, int wOff, int wStride, float[] x, int xOff, int xStride,
                           int n, float[] out, int o, int oStride, boolean add) {
        for (int t = 0; t < tokens; t++) {
            for (int r = 0; r < rows; r++) {
                put(out, o + t * oStride + r, dotScalar(w, wOff + r * wStride, x, xOff + t * xStride, n), add);
            }
        }
    }

    private static float sum(FloatVector v) {
        return v.reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
    }
}

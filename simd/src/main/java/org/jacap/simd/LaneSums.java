package org.jacap.simd;

import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.F512;
import static org.jacap.simd.VectorOps.D_PREFERRED;
import static org.jacap.simd.VectorOps.F_PREFERRED;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * Horizontal float sums in one fixed order, whoever runs them. {@code reduceLanes(ADD)} is not
 * usable for that: its order is unspecified, and in practice the interpreter and C1 (the Java
 * fallback) add lanes 0, 1, 2, … in turn while C2's intrinsic adds halves, so a kernel's last bit
 * depended on whether the JIT had compiled it yet, and greedy runs of a real model diverged from
 * one run to the next. Here every step is a lane-wise add of the vector and its mirror (lane i and
 * lane i ^ h for h = n/2, …, 1), which both the fallback and C2 compute exactly as written.
 */
public final class LaneSums {
    private LaneSums() {}

    // One shuffle per step and species, so C2 sees constants; steps past the lane count are unused.
    private static final VectorShuffle<Float> P8 = mirror(F_PREFERRED, 8);
    private static final VectorShuffle<Float> P4 = mirror(F_PREFERRED, 4);
    private static final VectorShuffle<Float> P2 = mirror(F_PREFERRED, 2);
    private static final VectorShuffle<Float> P1 = mirror(F_PREFERRED, 1);
    private static final VectorShuffle<Float> H4 = mirror(F256, 4);
    private static final VectorShuffle<Float> H2 = mirror(F256, 2);
    private static final VectorShuffle<Float> H1 = mirror(F256, 1);
    private static final VectorShuffle<Float> W8 = mirror(F512, 8);
    private static final VectorShuffle<Float> W4 = mirror(F512, 4);
    private static final VectorShuffle<Float> W2 = mirror(F512, 2);
    private static final VectorShuffle<Float> W1 = mirror(F512, 1);
    private static final int PREFERRED_LANES = F_PREFERRED.length();
    private static final VectorShuffle<Double> D4 = mirror(D_PREFERRED, 4);
    private static final VectorShuffle<Double> D2 = mirror(D_PREFERRED, 2);
    private static final VectorShuffle<Double> D1 = mirror(D_PREFERRED, 1);
    private static final int DOUBLE_LANES = D_PREFERRED.length();

    private static <E> VectorShuffle<E> mirror(VectorSpecies<E> s, int h) {
        return VectorShuffle.fromOp(s, i -> h < s.length() ? i ^ h : i);
    }

    /** Sum of the lanes of a vector of the preferred species ({@link VectorOps#F_PREFERRED}), in a fixed tree order. */
    public static float sum(FloatVector v) {
        if (PREFERRED_LANES > 16) {
            return sumScalar(v);
        }
        if (PREFERRED_LANES == 16) {
            v = v.add(v.rearrange(P8));
        }
        if (PREFERRED_LANES >= 8) {
            v = v.add(v.rearrange(P4));
        }
        if (PREFERRED_LANES >= 4) {
            v = v.add(v.rearrange(P2));
        }
        if (PREFERRED_LANES >= 2) {
            v = v.add(v.rearrange(P1));
        }
        return v.lane(0);
    }

    /** Sum of the 8 lanes of a 256-bit vector ({@link Layouts#F256}), in the same tree order. */
    public static float sum256(FloatVector v) {
        v = v.add(v.rearrange(H4));
        v = v.add(v.rearrange(H2));
        v = v.add(v.rearrange(H1));
        return v.lane(0);
    }

    /** Sum of the 16 lanes of a 512-bit vector ({@link Layouts#F512}), in the same tree order. */
    public static float sum512(FloatVector v) {
        v = v.add(v.rearrange(W8));
        v = v.add(v.rearrange(W4));
        v = v.add(v.rearrange(W2));
        v = v.add(v.rearrange(W1));
        return v.lane(0);
    }

    /** Sum of the lanes of a vector of the preferred double species, in the same tree order. */
    public static double sum(DoubleVector v) {
        if (DOUBLE_LANES > 8) {
            return sumScalar(v);
        }
        if (DOUBLE_LANES == 8) {
            v = v.add(v.rearrange(D4));
        }
        if (DOUBLE_LANES >= 4) {
            v = v.add(v.rearrange(D2));
        }
        if (DOUBLE_LANES >= 2) {
            v = v.add(v.rearrange(D1));
        }
        return v.lane(0);
    }

    /** Scalar twin of {@link #sum(DoubleVector)}. */
    public static double sumScalar(DoubleVector v) {
        double[] x = v.toArray();
        for (int h = x.length / 2; h >= 1; h /= 2) {
            for (int i = 0; i < h; i++) {
                x[i] = x[i] + x[i + h];
            }
        }
        return x[0];
    }

    /** Scalar twin: the same tree on the lanes of any vector (lane count a power of two). */
    public static float sumScalar(FloatVector v) {
        float[] x = v.toArray();
        for (int h = x.length / 2; h >= 1; h /= 2) {
            for (int i = 0; i < h; i++) {
                x[i] = x[i] + x[i + h];
            }
        }
        return x[0];
    }
}

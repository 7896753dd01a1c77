package org.jacap.simd;

import static org.jacap.simd.VectorOps.D_PREFERRED;

import java.util.Objects;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code (float) e^x} of the online softmax's arguments (x ≤ 0: a score minus the running
 * maximum), several at once: in double, x = n·ln 2 + r with |r| ≤ ln2/2, e^r by its Taylor
 * polynomial to degree 11 (error below 1e-14, far under half a float ulp but in the rarest
 * ties), 2^n put in the exponent bits, then rounded to float. {@link #expScalar} performs the
 * same operations one value at a time, so both give the same bits; e^0 is exactly 1 and
 * arguments below −104 (−∞ too) give exactly 0, as the float exponential does. It replaces
 * {@code (float) Math.exp(x)} one row at a time, the largest cost of a decode step's attention
 * after the F16 rounding.
 */
final class AttentionExp {
    private AttentionExp() {}

    private static final VectorSpecies<Float> F_HALF =
            VectorSpecies.of(float.class, jdk.incubator.vector.VectorShape.forBitSize(D_PREFERRED.vectorBitSize() / 2));

    private static final double INV_LN2 = 1.4426950408889634;
    private static final double LN2_HI = 6.93147180369123816490e-01;
    private static final double LN2_LO = 1.90821492927058770002e-10;
    /** Adding then subtracting 1.5·2^52 rounds to the nearest integer, which stays in the low bits. */
    private static final double ROUND = 6755399441055744.0;
    /** e^x rounds to float zero below this (e^-104 is under half the smallest float subnormal). */
    private static final double UNDERFLOW = -104.0;

    private static final double[] TAYLOR = new double[12];

    static {
        double f = 1;
        for (int k = 0; k < TAYLOR.length; k++) {
            TAYLOR[k] = 1.0 / f;
            f *= k + 1;
        }
    }

    /** dst[i] = (float) e^src[i] for i &lt; n. */
    static void exp(float[] src, int so, float[] dst, int dO, int n) {
        Objects.checkFromIndexSize(so, n, src.length);
        Objects.checkFromIndexSize(dO, n, dst.length);
        int i = 0;
        for (int bound = F_HALF.loopBound(n); i < bound; i += F_HALF.length()) {
            DoubleVector x = (DoubleVector)
                    FloatVector.fromArray(F_HALF, src, so + i).convertShape(VectorOperators.F2D, D_PREFERRED, 0);
            ((FloatVector) exp(x).convertShape(VectorOperators.D2F, F_HALF, 0)).intoArray(dst, dO + i);
        }
        for (; i < n; i++) {
            dst[dO + i] = expScalar(src[so + i]);
        }
    }

    private static DoubleVector exp(DoubleVector x) {
        DoubleVector t = x.mul(INV_LN2).add(ROUND);
        DoubleVector n = t.sub(ROUND);
        DoubleVector r = n.neg().fma(DoubleVector.broadcast(D_PREFERRED, LN2_HI), x);
        r = n.neg().fma(DoubleVector.broadcast(D_PREFERRED, LN2_LO), r);
        DoubleVector p = DoubleVector.broadcast(D_PREFERRED, TAYLOR[11]);
        for (int k = 10; k >= 0; k--) {
            p = r.fma(p, DoubleVector.broadcast(D_PREFERRED, TAYLOR[k])); // p as an argument: see Q6KKernel.blockWide
        }
        DoubleVector scale = t.reinterpretAsLongs()
                .add(1023)
                .lanewise(VectorOperators.LSHL, 52)
                .reinterpretAsDoubles();
        return p.mul(scale).blend(0.0, x.compare(VectorOperators.LT, UNDERFLOW));
    }

    /** Scalar twin of the vector form: the same operations on one value. */
    static float expScalar(float xf) {
        double x = xf;
        if (x < UNDERFLOW) {
            return 0f;
        }
        double t = x * INV_LN2 + ROUND;
        double n = t - ROUND;
        double r = Math.fma(-n, LN2_HI, x);
        r = Math.fma(-n, LN2_LO, r);
        double p = TAYLOR[11];
        for (int k = 10; k >= 0; k--) {
            p = Math.fma(p, r, TAYLOR[k]);
        }
        double scale = Double.longBitsToDouble((Double.doubleToRawLongBits(t) + 1023) << 52);
        return (float) (p * scale);
    }
}

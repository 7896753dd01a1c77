package org.jacap.simd;

import static org.jacap.simd.VectorOps.F_PREFERRED;

import java.util.Objects;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;

/**
 * {@code scale · q·k_r} for the rows of a key tile, eight rows at a time: each row's products
 * accumulate in one vector (lane l sums the elements l, l + L, l + 2L, … by FMA, L the lane
 * count), and the eight vectors are reduced together, two by two (lanes l and l ^ h added for
 * h = 1, 2, 4, …), so that lane r of one vector ends up holding row r's sum: three blends, one
 * permute and one add per pair instead of a whole reduction tree per row. Elements past the last
 * whole vector are added after the tree, one FMA each. The order of every row's sum is fixed by
 * that description ({@link #scoresScalar} follows it element by element), so the result does not
 * depend on how the rows are grouped; it does depend on L (8 on AVX2, 16 on AVX-512), as every
 * vector sum here does.
 */
final class RowDots {
    private RowDots() {}

    /** Rows reduced together. */
    static final int GROUP = 8;

    private static final int LANES = F_PREFERRED.length();
    private static final VectorShuffle<Float> SWAP1 = VectorShuffle.fromOp(F_PREFERRED, i -> i ^ 1);
    private static final VectorShuffle<Float> SWAP2 = VectorShuffle.fromOp(F_PREFERRED, i -> i ^ 2);
    private static final VectorShuffle<Float> SWAP4 = VectorShuffle.fromOp(F_PREFERRED, i -> i ^ 4);
    private static final VectorShuffle<Float> SWAP8 = VectorShuffle.fromOp(F_PREFERRED, i -> i ^ (8 % LANES));
    private static final VectorMask<Float> BIT1 = VectorMask.fromLong(F_PREFERRED, bits(1));
    private static final VectorMask<Float> BIT2 = VectorMask.fromLong(F_PREFERRED, bits(2));
    private static final VectorMask<Float> BIT4 = VectorMask.fromLong(F_PREFERRED, bits(4));
    private static final VectorMask<Float> FIRST_GROUP = VectorMask.fromLong(F_PREFERRED, (1L << GROUP) - 1);

    /** The lanes whose index has bit h set. */
    private static long bits(int h) {
        long m = 0;
        for (int l = 0; l < LANES; l++) {
            if ((l & h) != 0) {
                m |= 1L << l;
            }
        }
        return m;
    }

    /**
     * out[oo + r] = scale · Σ_c q[qo + c]·k[ko + r·d + c] for rows r &lt; n, in the order the class
     * describes; {@code out} needs room for whole groups of {@link #GROUP} from {@code oo}.
     */
    static void scores(float[] q, int qo, float[] k, int ko, int n, int d, float scale, float[] out, int oo) {
        Objects.checkFromIndexSize(qo, d, q.length);
        Objects.checkFromIndexSize(ko, (long) n * d, k.length);
        Objects.checkFromIndexSize(oo, n, out.length);
        int r = 0;
        if (LANES >= GROUP && LANES <= 16) {
            for (; r + GROUP <= n; r += GROUP) {
                group(q, qo, k, ko + r * d, d, out, oo + r);
                finishRows(q, qo, k, ko + r * d, GROUP, d, scale, out, oo + r);
            }
        }
        for (; r < n; r++) {
            out[oo + r] = single(q, qo, k, ko + r * d, d);
            finishRows(q, qo, k, ko + r * d, 1, d, scale, out, oo + r);
        }
    }

    /** The lane sums of eight rows, row r in out[oo + r] (the vector part only). */
    private static void group(float[] q, int qo, float[] k, int ko, int d, float[] out, int oo) {
        FloatVector a0 = FloatVector.zero(F_PREFERRED);
        FloatVector a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        int bound = F_PREFERRED.loopBound(d);
        for (int c = 0; c < bound; c += LANES) {
            FloatVector qv = FloatVector.fromArray(F_PREFERRED, q, qo + c);
            a0 = FloatVector.fromArray(F_PREFERRED, k, ko + c).fma(qv, a0);
            a1 = FloatVector.fromArray(F_PREFERRED, k, ko + d + c).fma(qv, a1);
            a2 = FloatVector.fromArray(F_PREFERRED, k, ko + 2 * d + c).fma(qv, a2);
            a3 = FloatVector.fromArray(F_PREFERRED, k, ko + 3 * d + c).fma(qv, a3);
            a4 = FloatVector.fromArray(F_PREFERRED, k, ko + 4 * d + c).fma(qv, a4);
            a5 = FloatVector.fromArray(F_PREFERRED, k, ko + 5 * d + c).fma(qv, a5);
            a6 = FloatVector.fromArray(F_PREFERRED, k, ko + 6 * d + c).fma(qv, a6);
            a7 = FloatVector.fromArray(F_PREFERRED, k, ko + 7 * d + c).fma(qv, a7);
        }
        FloatVector b0 = pair(a0, a1, BIT1, SWAP1);
        FloatVector b1 = pair(a2, a3, BIT1, SWAP1);
        FloatVector b2 = pair(a4, a5, BIT1, SWAP1);
        FloatVector b3 = pair(a6, a7, BIT1, SWAP1);
        FloatVector c0 = pair(b0, b1, BIT2, SWAP2);
        FloatVector c1 = pair(b2, b3, BIT2, SWAP2);
        FloatVector s = pair(c0, c1, BIT4, SWAP4);
        if (LANES == 16) {
            s = s.add(s.rearrange(SWAP8)); // lanes r and r + 8 hold the two halves of row r
        }
        s.intoArray(out, oo, FIRST_GROUP); // rows 0..7 in lanes 0..7
    }

    /** Lanes with bit h clear from x, set from y, each plus its partner lane l ^ h of the same row. */
    private static FloatVector pair(FloatVector x, FloatVector y, VectorMask<Float> bit, VectorShuffle<Float> swap) {
        FloatVector own = x.blend(y, bit);
        FloatVector partner = y.blend(x, bit).rearrange(swap);
        return own.add(partner);
    }

    /** One row's lane sum (vector part), by the same pairs. */
    private static float single(float[] q, int qo, float[] k, int ko, int d) {
        FloatVector a = FloatVector.zero(F_PREFERRED);
        int bound = F_PREFERRED.loopBound(d);
        for (int c = 0; c < bound; c += LANES) {
            a = FloatVector.fromArray(F_PREFERRED, k, ko + c).fma(FloatVector.fromArray(F_PREFERRED, q, qo + c), a);
        }
        if (LANES >= 2) {
            a = a.add(a.rearrange(SWAP1));
        }
        if (LANES >= 4) {
            a = a.add(a.rearrange(SWAP2));
        }
        if (LANES >= 8) {
            a = a.add(a.rearrange(SWAP4));
        }
        if (LANES == 16) {
            a = a.add(a.rearrange(SWAP8));
        }
        return a.lane(0);
    }

    /** Adds each row's elements past the last whole vector (one FMA each, in order), then scales. */
    private static void finishRows(
            float[] q, int qo, float[] k, int ko, int rows, int d, float scale, float[] out, int oo) {
        int bound = F_PREFERRED.loopBound(d);
        for (int r = 0; r < rows; r++) {
            float s = out[oo + r];
            for (int c = bound; c < d; c++) {
                s = Math.fma(k[ko + r * d + c], q[qo + c], s);
            }
            out[oo + r] = s * scale;
        }
    }

    /** Scalar twin of {@link #scores} for {@code lanes} lanes (a power of two): the same sums, element by element. */
    static void scoresScalar(
            float[] q, int qo, float[] k, int ko, int n, int d, float scale, float[] out, int oo, int lanes) {
        Objects.checkFromIndexSize(qo, d, q.length);
        Objects.checkFromIndexSize(ko, (long) n * d, k.length);
        Objects.checkFromIndexSize(oo, n, out.length);
        int bound = d - d % lanes;
        float[] acc = new float[lanes];
        for (int r = 0; r < n; r++) {
            java.util.Arrays.fill(acc, 0f);
            for (int c = 0; c < bound; c++) {
                acc[c % lanes] = Math.fma(k[ko + r * d + c], q[qo + c], acc[c % lanes]);
            }
            for (int h = 1; h < lanes; h *= 2) {
                for (int l = 0; l < lanes; l++) {
                    if ((l & h) == 0) {
                        acc[l] = acc[l] + acc[l + h];
                    }
                }
            }
            float s = acc[0];
            for (int c = bound; c < d; c++) {
                s = Math.fma(k[ko + r * d + c], q[qo + c], s);
            }
            out[oo + r] = s * scale;
        }
    }
}

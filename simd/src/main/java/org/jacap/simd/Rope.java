package org.jacap.simd;

import static org.jacap.simd.VectorOps.F_PREFERRED;

import java.util.Objects;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;

/**
 * Rotary position embedding for heads of width {@code headDim}, of which the first {@code ropeDim}
 * channels are rotated (the rest pass through). Frequency i (0 ≤ i &lt; ropeDim/2) rotates the
 * channel pair {@code (layout.first(i), layout.second(i))} by the angle φ = pos·invFreq[i]:
 * <pre>
 *   x'_a = x_a cos φ − x_b sin φ
 *   x'_b = x_a sin φ + x_b cos φ
 *   invFreq[i] = freqScale · base^(−2i/ropeDim) / freqFactor[i]
 * </pre>
 * Immutable and thread-safe. Two ways to use it:
 * <ul>
 *   <li>{@link #apply}: self-contained, computes cos/sin in double for every call (exact, no
 *       scratch, allocation-free) — simple call sites and tests;</li>
 *   <li>{@link #fillTable} once per position into a caller-owned table ({@link #newTable}), then
 *       {@link #rotate} (vectorised) for every layer and both Q and K — the forward pass. The
 *       table holds cos/sin rounded to float, like llama.cpp.</li>
 * </ul>
 * {@link #rotateScalar} is the scalar twin of {@link #rotate}.
 */
public final class Rope {

    /** Swaps the two lanes of every adjacent pair: (x0, x1, x2, x3, …) → (x1, x0, x3, x2, …). */
    private static final VectorShuffle<Float> SWAP_PAIRS = VectorShuffle.fromOp(F_PREFERRED, i -> i ^ 1);

    private final int headDim;
    private final int ropeDim;
    private final int half;
    private final RopeLayout layout;
    private final double[] invFreq;

    /** Rope with the standard frequencies (no linear scaling). */
    public Rope(int headDim, int ropeDim, double base, float[] freqFactors, RopeLayout layout) {
        this(headDim, ropeDim, base, 1.0, freqFactors, layout);
    }

    /**
     * @param headDim     channels per head
     * @param ropeDim     rotated channels (even, ≤ headDim); the rest are left unchanged
     * @param base        θ base, e.g. 10000 or 500000
     * @param freqScale   linear position scaling ({@code rope.scaling.type = linear}: 1/factor), 1 for none
     * @param freqFactors per-frequency divisors ({@code rope_freqs.weight}, Llama 3.1), ropeDim/2 of them, or null
     * @param layout      which channels form a pair
     */
    public Rope(int headDim, int ropeDim, double base, double freqScale, float[] freqFactors, RopeLayout layout) {
        if (headDim <= 0 || ropeDim < 0 || ropeDim > headDim || ropeDim % 2 != 0) {
            throw new IllegalArgumentException(
                    "RoPE needs 0 ≤ ropeDim ≤ headDim with ropeDim even: headDim " + headDim + ", ropeDim " + ropeDim);
        }
        if (!(base > 0) || Double.isInfinite(base)) {
            throw new IllegalArgumentException("RoPE base must be positive and finite: " + base);
        }
        if (!(freqScale > 0) || Double.isInfinite(freqScale)) {
            throw new IllegalArgumentException("RoPE frequency scale must be positive and finite: " + freqScale);
        }
        this.headDim = headDim;
        this.ropeDim = ropeDim;
        this.half = ropeDim / 2;
        this.layout = Objects.requireNonNull(layout, "layout");
        if (freqFactors != null && freqFactors.length != half) {
            throw new IllegalArgumentException(
                    "RoPE frequency factors: expected ropeDim/2 = " + half + ", got " + freqFactors.length);
        }
        this.invFreq = new double[half];
        for (int i = 0; i < half; i++) {
            double f = freqScale * Math.pow(base, -2.0 * i / ropeDim);
            if (freqFactors != null) {
                float factor = freqFactors[i];
                if (!(factor > 0) || Float.isInfinite(factor)) {
                    throw new IllegalArgumentException("RoPE frequency factor " + i + " must be positive: " + factor);
                }
                f /= factor;
            }
            invFreq[i] = f;
        }
    }

    /**
     * Rope with given angular frequencies (radians per position), e.g. exact doubles from a
     * reference file; ropeDim = 2·invFreq.length.
     */
    public static Rope withFrequencies(int headDim, double[] invFreq, RopeLayout layout) {
        return new Rope(headDim, invFreq.clone(), layout);
    }

    private Rope(int headDim, double[] invFreq, RopeLayout layout) {
        int ropeDim = 2 * invFreq.length;
        if (headDim <= 0 || ropeDim > headDim) {
            throw new IllegalArgumentException(
                    "RoPE needs 2·frequencies ≤ headDim: headDim " + headDim + ", " + invFreq.length + " frequencies");
        }
        for (double f : invFreq) {
            if (!Double.isFinite(f)) {
                throw new IllegalArgumentException("RoPE frequency must be finite: " + f);
            }
        }
        this.headDim = headDim;
        this.ropeDim = ropeDim;
        this.half = invFreq.length;
        this.layout = Objects.requireNonNull(layout, "layout");
        this.invFreq = invFreq;
    }

    public int headDim() {
        return headDim;
    }

    public int ropeDim() {
        return ropeDim;
    }

    public RopeLayout layout() {
        return layout;
    }

    /** Number of frequencies (rotated pairs) = ropeDim/2. */
    public int pairCount() {
        return half;
    }

    /** The exact angular frequencies, radians per position (a copy). */
    public double[] invFreq() {
        return invFreq.clone();
    }

    /** Frequency i's rotation angle at position pos: pos·invFreq[i], in double. */
    public double angle(int pos, int i) {
        return pos * invFreq[i];
    }

    /** Channel of a head that frequency i rotates as x_a. */
    public int pairFirst(int i) {
        Objects.checkIndex(i, half);
        return layout.first(i, ropeDim);
    }

    /** Channel of a head that frequency i rotates as x_b. */
    public int pairSecond(int i) {
        Objects.checkIndex(i, half);
        return layout.second(i, ropeDim);
    }

    /**
     * Rotates nHeads consecutive heads (head h at off + h·headDim) to position pos, with cos/sin
     * computed in double for this call. Thread-safe and allocation-free.
     */
    public void apply(float[] x, int off, int nHeads, int pos) {
        checkHeads(x, off, nHeads);
        for (int i = 0; i < half; i++) {
            double phi = pos * invFreq[i];
            double c = Math.cos(phi);
            double s = Math.sin(phi);
            int ia = off + layout.first(i, ropeDim);
            int ib = off + layout.second(i, ropeDim);
            for (int h = 0; h < nHeads; h++, ia += headDim, ib += headDim) {
                double a = x[ia];
                double b = x[ib];
                x[ia] = (float) (a * c - b * s);
                x[ib] = (float) (a * s + b * c);
            }
        }
    }

    /** Length of a cos/sin table for {@link #fillTable}: 2·ropeDim floats. */
    public int tableSize() {
        return 2 * ropeDim;
    }

    /** A fresh table to be filled by {@link #fillTable}; keep one per thread and reuse it. */
    public float[] newTable() {
        return new float[tableSize()];
    }

    /**
     * Writes position pos's rotation into table[0, 2·ropeDim): per channel k, C[k] = cos φ and
     * S[k] = ∓sin φ (minus on the pair's first channel), so that x'[k] = x[k]·C[k] + x[partner(k)]·S[k].
     * Angles are computed in double, then rounded to float.
     */
    public void fillTable(int pos, float[] table) {
        Objects.checkFromIndexSize(0, tableSize(), table.length);
        for (int i = 0; i < half; i++) {
            double phi = pos * invFreq[i];
            float c = (float) Math.cos(phi);
            float s = (float) Math.sin(phi);
            int a = layout.first(i, ropeDim);
            int b = layout.second(i, ropeDim);
            table[a] = c;
            table[b] = c;
            table[ropeDim + a] = -s;
            table[ropeDim + b] = s;
        }
    }

    /** Rotates nHeads consecutive heads with a table from {@link #fillTable} (vectorised). */
    public void rotate(float[] x, int off, int nHeads, float[] table) {
        checkHeads(x, off, nHeads);
        Objects.checkFromIndexSize(0, tableSize(), table.length);
        int l = F_PREFERRED.length();
        if (layout == RopeLayout.NORMAL) {
            int bound = F_PREFERRED.loopBound(ropeDim);
            for (int h = 0, base = off; h < nHeads; h++, base += headDim) {
                int k = 0;
                for (; k < bound; k += l) {
                    FloatVector v = FloatVector.fromArray(F_PREFERRED, x, base + k);
                    FloatVector cos = FloatVector.fromArray(F_PREFERRED, table, k);
                    FloatVector sin = FloatVector.fromArray(F_PREFERRED, table, ropeDim + k);
                    v.rearrange(SWAP_PAIRS).fma(sin, v.mul(cos)).intoArray(x, base + k);
                }
                for (; k < ropeDim; k += 2) {
                    rotatePair(x, base + k, base + k + 1, table[k], table[ropeDim + k + 1]);
                }
            }
        } else {
            int bound = F_PREFERRED.loopBound(half);
            for (int h = 0, base = off; h < nHeads; h++, base += headDim) {
                int i = 0;
                for (; i < bound; i += l) {
                    FloatVector a = FloatVector.fromArray(F_PREFERRED, x, base + i);
                    FloatVector b = FloatVector.fromArray(F_PREFERRED, x, base + half + i);
                    FloatVector cos = FloatVector.fromArray(F_PREFERRED, table, i);
                    FloatVector negSin = FloatVector.fromArray(F_PREFERRED, table, ropeDim + i);
                    b.fma(negSin, a.mul(cos)).intoArray(x, base + i);
                    a.neg().fma(negSin, b.mul(cos)).intoArray(x, base + half + i);
                }
                for (; i < half; i++) {
                    rotatePair(x, base + i, base + half + i, table[i], table[ropeDim + half + i]);
                }
            }
        }
    }

    /** Scalar twin of {@link #rotate}: x'[k] = x[k]·C[k] + x[partner(k)]·S[k] per pair. */
    public void rotateScalar(float[] x, int off, int nHeads, float[] table) {
        checkHeads(x, off, nHeads);
        Objects.checkFromIndexSize(0, tableSize(), table.length);
        for (int h = 0, base = off; h < nHeads; h++, base += headDim) {
            for (int i = 0; i < half; i++) {
                int a = layout.first(i, ropeDim);
                int b = layout.second(i, ropeDim);
                rotatePair(x, base + a, base + b, table[a], table[ropeDim + b]);
            }
        }
    }

    private static void rotatePair(float[] x, int ia, int ib, float c, float s) {
        float a = x[ia];
        float b = x[ib];
        x[ia] = a * c - b * s;
        x[ib] = a * s + b * c;
    }

    private void checkHeads(float[] x, int off, int nHeads) {
        if (nHeads < 0) {
            throw new IllegalArgumentException("negative head count " + nHeads);
        }
        Objects.checkFromIndexSize(off, Math.multiplyExact(nHeads, headDim), x.length);
    }

    @Override
    public String toString() {
        return "Rope[headDim=" + headDim + ", ropeDim=" + ropeDim + ", layout=" + layout + "]";
    }
}

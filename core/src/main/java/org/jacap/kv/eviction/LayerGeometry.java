package org.jacap.kv.eviction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.jacap.JacapException;
import org.jacap.model.LayerConfig;
import org.jacap.model.Model;
import org.jacap.model.ModelConfig;
import org.jacap.model.ModelWeights;
import org.jacap.simd.Rope;
import org.jacap.simd.RopeLayout;
import org.jacap.simd.WeightMatrix;

/**
 * What eviction needs to know about one attention layer of a model: head counts, the RoPE the
 * layer's keys were rotated with (its own pairing and frequencies, scaling and {@code rope_freqs}
 * factors included; Gemma 3's local layers have their own base) and its sliding window.
 *
 * @param shape         query heads, KV heads, head dim
 * @param ropeLayout    which dimensions rotate together
 * @param invFreq       radians per position of each rotated pair; {@code 2·invFreq.length ≤ headDim}
 * @param slidingWindow 0 for global attention, else a query at p sees entries at e with p − e &lt; window
 * @param outputEnergy  per query head and value dimension ({@code [h·d + c]}), the squared norm of the
 *                      attention output projection's column that carries it into the residual
 *                      stream; null where unknown (sliding-window layers, geometry built from a
 *                      configuration alone)
 */
public record LayerGeometry(
        AttentionShape shape, RopeLayout ropeLayout, double[] invFreq, int slidingWindow, double[] outputEnergy) {
    /** Geometry without the output projection's energies. */
    public LayerGeometry(AttentionShape shape, RopeLayout ropeLayout, double[] invFreq, int slidingWindow) {
        this(shape, ropeLayout, invFreq, slidingWindow, null);
    }

    public LayerGeometry {
        if (outputEnergy != null && outputEnergy.length != shape.queryHeads() * shape.headDim()) {
            throw new JacapException("output energies for " + outputEnergy.length + " columns, the layer has "
                    + shape.queryHeads() * shape.headDim());
        }
        outputEnergy = outputEnergy == null ? null : outputEnergy.clone();
        if (invFreq.length == 0 || 2 * invFreq.length > shape.headDim()) {
            throw new JacapException(
                    "a layer needs 1.." + shape.headDim() / 2 + " RoPE frequencies, got " + invFreq.length);
        }
        if (slidingWindow < 0) {
            throw new JacapException("sliding window must be >= 0, got " + slidingWindow);
        }
        invFreq = invFreq.clone();
    }

    /** Every layer of a loaded model, global layers with their output energies (computed once per model). */
    public static List<LayerGeometry> of(Model model) {
        ModelWeights weights = model.weights();
        synchronized (OF_MODEL) {
            return OF_MODEL.computeIfAbsent(weights, w -> withOutputEnergy(of(model.config(), w.ropeFactors()), w));
        }
    }

    /**
     * Per loaded model's weights (records of mapped segments and arrays, so equal only to themselves;
     * weak, so a closed model's entry goes): the energies need one pass over every global W_O.
     */
    private static final Map<ModelWeights, List<LayerGeometry>> OF_MODEL = new WeakHashMap<>();

    private static List<LayerGeometry> withOutputEnergy(List<LayerGeometry> layers, ModelWeights weights) {
        List<LayerGeometry> out = new ArrayList<>(layers.size());
        for (int l = 0; l < layers.size(); l++) {
            LayerGeometry g = layers.get(l);
            WeightMatrix wo = weights.layers().get(l).attention().output().weight();
            boolean fits = wo.cols() == g.shape.queryHeads() * g.shape.headDim();
            out.add(
                    g.isSliding() || !fits
                            ? g
                            : new LayerGeometry(g.shape, g.ropeLayout, g.invFreq, g.slidingWindow, columnEnergy(wo)));
        }
        return List.copyOf(out);
    }

    /** Σ_r W[r][c]² for every column c: how strongly input c of the projection reaches its output. */
    static double[] columnEnergy(WeightMatrix w) {
        double[] energy = new double[w.cols()];
        float[] row = new float[w.cols()];
        for (int r = 0; r < w.rows(); r++) {
            w.dequantizeRow(r, row, 0);
            for (int c = 0; c < row.length; c++) {
                energy[c] += (double) row[c] * row[c];
            }
        }
        return energy;
    }

    /**
     * Every layer of a configuration, with the frequencies the forward pass rotates with: the
     * same {@link Rope} construction (base, linear scaling, {@code rope_freqs} factors, layout).
     */
    public static List<LayerGeometry> of(ModelConfig config, float[] ropeFactors) {
        List<LayerGeometry> out = new ArrayList<>(config.blockCount());
        for (LayerConfig l : config.layers()) {
            Rope rope = new Rope(
                    l.keyLength(), l.ropeDimension(), l.ropeBase(), l.ropeFreqScale(), ropeFactors, l.ropeLayout());
            RopeLayout layout = l.ropeLayout();
            out.add(new LayerGeometry(
                    new AttentionShape(l.headCount(), l.headCountKv(), l.keyLength()),
                    layout,
                    rope.invFreq(),
                    l.slidingWindow()));
        }
        return out;
    }

    @Override
    public double[] invFreq() {
        return invFreq.clone();
    }

    @Override
    public double[] outputEnergy() {
        return outputEnergy == null ? null : outputEnergy.clone();
    }

    /** The stored energies themselves (no copy), for the snapshot of every eviction event. */
    double[] outputEnergyShared() {
        return outputEnergy;
    }

    public boolean isSliding() {
        return slidingWindow > 0;
    }

    /**
     * The first position a query at {@code nextPosition} or later can still see: entries before it
     * are dead for good in a sliding-window layer (0 for global layers).
     */
    public long firstLivePosition(long nextPosition) {
        return isSliding() ? nextPosition - slidingWindow + 1 : 0;
    }

    /** R̄ over {@code count} future positions from {@code nextPosition}, with this layer's own RoPE. */
    public AveragedRotation futureRotation(long nextPosition, int count) {
        return AveragedRotation.overPositions(ropeLayout, invFreq, shape.headDim(), nextPosition, count);
    }

    /** Whether two layers rotate identically (their R̄ can be shared within one eviction event). */
    public boolean sameRope(LayerGeometry other) {
        return ropeLayout == other.ropeLayout
                && shape.headDim() == other.shape.headDim()
                && java.util.Arrays.equals(invFreq, other.invFreq);
    }
}

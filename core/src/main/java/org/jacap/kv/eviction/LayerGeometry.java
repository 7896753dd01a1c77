package org.jacap.kv.eviction;

import java.util.ArrayList;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.model.LayerConfig;
import org.jacap.model.Model;
import org.jacap.model.ModelConfig;
import org.jacap.simd.Rope;
import org.jacap.simd.RopeLayout;

/**
 * What eviction needs to know about one attention layer of a model: head counts, the RoPE the
 * layer's keys were rotated with (its own pairing and frequencies, scaling and {@code rope_freqs}
 * factors included; Gemma 3's local layers have their own base) and its sliding window.
 *
 * @param shape         query heads, KV heads, head dim
 * @param ropeLayout    which dimensions rotate together
 * @param invFreq       radians per position of each rotated pair; {@code 2·invFreq.length ≤ headDim}
 * @param slidingWindow 0 for global attention, else a query at p sees entries at e with p − e &lt; window
 */
public record LayerGeometry(AttentionShape shape, RopeLayout ropeLayout, double[] invFreq, int slidingWindow) {
    public LayerGeometry {
        if (invFreq.length == 0 || 2 * invFreq.length > shape.headDim()) {
            throw new JacapException(
                    "a layer needs 1.." + shape.headDim() / 2 + " RoPE frequencies, got " + invFreq.length);
        }
        if (slidingWindow < 0) {
            throw new JacapException("sliding window must be >= 0, got " + slidingWindow);
        }
        invFreq = invFreq.clone();
    }

    /** Every layer of a loaded model. */
    public static List<LayerGeometry> of(Model model) {
        return of(model.config(), model.weights().ropeFactors());
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

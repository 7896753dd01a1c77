package org.jacap.kv.eviction;

import java.util.function.IntFunction;
import org.jacap.JacapException;

/**
 * Everything a scorer reads for one layer at one eviction event.
 *
 * @param layer          layer index (PyramidKV budgets fall with depth)
 * @param layerCount     number of layers in the model
 * @param heads          one entry set per KV head; heads may hold different entries
 * @param futureRotation R̄ over the next positions (CapKV, Jacap, ExpectedAttention); may be null
 *                       for policies that do not use it. Shared by all layers of one event.
 * @param queries        statistics the forward pass gathered for this layer
 * @param outputEnergy   {@link LayerGeometry#outputEnergy()}: per query head and value dimension, the
 *                       squared norm of its W_O column; null where unknown
 */
public record LayerSnapshot(
        int layer,
        int layerCount,
        AttentionShape shape,
        KvHeadRows[] heads,
        AveragedRotation futureRotation,
        QueryStatistics queries,
        double[] outputEnergy) {
    /** A snapshot without the output projection's energies. */
    public LayerSnapshot(
            int layer,
            int layerCount,
            AttentionShape shape,
            KvHeadRows[] heads,
            AveragedRotation futureRotation,
            QueryStatistics queries) {
        this(layer, layerCount, shape, heads, futureRotation, queries, null);
    }

    public LayerSnapshot {
        if (outputEnergy != null && outputEnergy.length != shape.queryHeads() * shape.headDim()) {
            throw new JacapException("output energies for " + outputEnergy.length + " columns, the layer has "
                    + shape.queryHeads() * shape.headDim());
        }
        if (heads.length != shape.kvHeads()) {
            throw new JacapException("snapshot has " + heads.length + " KV heads, shape says " + shape.kvHeads());
        }
        for (KvHeadRows h : heads) {
            if (h.headDim() != shape.headDim()) {
                throw new JacapException("KV head dim " + h.headDim() + " differs from " + shape.headDim());
            }
        }
        if (layer < 0 || layer >= layerCount) {
            throw new JacapException("layer " + layer + " outside 0.." + (layerCount - 1));
        }
    }

    public KvHeadRows head(int kvHead) {
        return heads[kvHead];
    }

    /** {@code [kvHead][entry]} scores of a scorer that scores each KV head on its own, heads in order. */
    double[][] scoreEachHead(IntFunction<double[]> scoresOfHead) {
        double[][] s = new double[heads.length][];
        for (int g = 0; g < s.length; g++) {
            s[g] = scoresOfHead.apply(g);
        }
        return s;
    }

    /** R̄, or a clear error when the engine did not provide it. */
    AveragedRotation requireRotation(String policy) {
        if (futureRotation == null) {
            throw new JacapException(policy + " needs the averaged future RoPE rotation, which the snapshot lacks");
        }
        return futureRotation;
    }
}

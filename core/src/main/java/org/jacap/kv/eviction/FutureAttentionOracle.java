package org.jacap.kv.eviction;

import org.jacap.JacapException;

/**
 * Evaluation ceiling, not a deployable policy: keeps the entries that the future queries of a
 * reference (full-cache) run attended to most. Score = group mean of the attention mass the
 * entry's position received from those queries.
 */
public record FutureAttentionOracle(FutureAttentionMass mass) implements KvScorer {

    /** Attention mass received per context position from the future queries of a reference run. */
    @FunctionalInterface
    public interface FutureAttentionMass {
        /**
         * Mass received by each position from the future queries of {@code queryHead} in layer
         * {@code layer}, indexed by position; positions beyond the array received nothing.
         */
        double[] receivedByPosition(int layer, int queryHead);

        /**
         * Reads it from statistics that observed only the future queries of a full-cache run
         * (entry index = position there, since nothing was evicted).
         */
        static FutureAttentionMass fromStatistics(QueryStatistics[] perLayer, int contextLength) {
            return (layer, head) -> {
                double[] out = new double[contextLength];
                for (int p = 0; p < contextLength; p++) {
                    out[p] = perLayer[layer].attentionReceived(head, p);
                }
                return out;
            };
        }
    }

    @Override
    public String name() {
        return "oracle";
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.NOTHING;
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        AttentionShape shape = layer.shape();
        return layer.scoreEachHead(g -> {
            KvHeadRows rows = layer.head(g);
            double[] s = new double[rows.length()];
            for (int h = shape.firstQueryHead(g); h < shape.firstQueryHead(g) + shape.groupSize(); h++) {
                double[] received = mass.receivedByPosition(layer.layer(), h);
                if (received == null) {
                    throw new JacapException("oracle: no reference attention for layer " + layer.layer());
                }
                for (int i = 0; i < rows.length(); i++) {
                    int p = rows.positions()[i];
                    s[i] += p < received.length ? received[p] : 0.0;
                }
            }
            for (int i = 0; i < rows.length(); i++) {
                s[i] /= shape.groupSize();
            }
            return s;
        });
    }
}

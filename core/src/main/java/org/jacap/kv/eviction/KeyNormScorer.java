package org.jacap.kv.eviction;

/** KNorm: {@code −‖k_i‖₂}; low-norm keys draw more attention, so they are kept. */
public record KeyNormScorer() implements KvScorer {
    @Override
    public String name() {
        return "knorm";
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.NOTHING;
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        return layer.scoreEachHead(g -> {
            double[] sq = HeadColumns.keysOf(layer.head(g)).keyNormsSquared();
            for (int i = 0; i < sq.length; i++) {
                sq[i] = -Math.sqrt(sq[i]);
            }
            return sq;
        });
    }
}

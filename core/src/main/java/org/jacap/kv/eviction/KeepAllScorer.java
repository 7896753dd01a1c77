package org.jacap.kv.eviction;

/** Policy {@code none}: no eviction. Scores are all 0; {@link EvictionPolicy} keeps every entry. */
public record KeepAllScorer() implements KvScorer {
    @Override
    public String name() {
        return "none";
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.NOTHING;
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        return layer.scoreEachHead(g -> new double[layer.head(g).length()]);
    }
}

package org.jacap.kv.eviction;

import java.util.SplittableRandom;

/**
 * Uniform random scores from {@code new SplittableRandom(seed).nextDouble()}, drawn head-major
 * (KV head 0's entries first). The same seed gives the same scores on every layer of equal length.
 */
public record RandomScorer(long seed) implements KvScorer {
    public static final long DEFAULT_SEED = 0;

    @Override
    public String name() {
        return "random";
    }

    @Override
    public String spec() {
        return name() + ":seed=" + seed;
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.NOTHING;
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        SplittableRandom random = new SplittableRandom(seed);
        return layer.scoreEachHead(g -> {
            double[] s = new double[layer.head(g).length()];
            for (int i = 0; i < s.length; i++) {
                s[i] = random.nextDouble();
            }
            return s;
        });
    }
}

package org.jacap.kv.eviction;

/**
 * StreamingLLM: keep the first {@code nSink} entries and the most recent ones. Every entry is
 * protected, in priority order sinks (lowest first) then the rest (newest first), so any budget
 * B keeps the first min(B, nSink) plus the last max(B − nSink, 0) entries. These scores are the
 * fixture README's budget-dependent scores at B = n, which rank identically for every B.
 */
public record StreamingScorer(int nSink) implements KvScorer {
    public static final int DEFAULT_SINKS = 4;

    @Override
    public String name() {
        return "streaming";
    }

    @Override
    public String spec() {
        return name() + ":n_sink=" + nSink;
    }

    @Override
    public int protectedSinks() {
        return nSink;
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.NOTHING;
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        double[][] s = new double[layer.heads().length][];
        for (int g = 0; g < s.length; g++) {
            int n = layer.head(g).length();
            s[g] = new double[n];
            int sinks = Math.min(nSink, n);
            for (int i = 0; i < sinks; i++) {
                s[g][i] = n - i;
            } // rank q = i
            for (int i = sinks; i < n; i++) {
                s[g][i] = i - sinks + 1;
            } // rank q = sinks + (n−1−i)
        }
        return s;
    }
}

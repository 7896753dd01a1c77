package org.jacap.bench.throughput;

import org.jacap.bench.report.SampleStats;

/**
 * Eviction measured after a prefill: the policy, the ratio, the entries each (layer, KV head)
 * kept, and the wall time of each compression (snapshot, scoring, compaction), nanoseconds.
 */
public record EvictionTiming(String policy, double ratio, int keptPerHead, long[] scoringNs) {

    public EvictionTiming {
        scoringNs = scoringNs.clone();
    }

    @Override
    public long[] scoringNs() {
        return scoringNs.clone();
    }

    public SampleStats scoringMillis() {
        double[] ms = new double[scoringNs.length];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = scoringNs[i] / 1e6;
        }
        return SampleStats.of(ms);
    }
}

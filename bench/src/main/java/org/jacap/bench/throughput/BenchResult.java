package org.jacap.bench.throughput;

import org.jacap.bench.report.SampleStats;

/**
 * The timed repetitions of one test at one thread count, with the facts measured around them.
 *
 * @param samplesNs     wall time of each repetition (after the warm-up), nanoseconds
 * @param loadNanos     time to load and bind the model for this thread count
 * @param kvCacheBytes  bytes the test's KV cache holds when it ends
 * @param eviction      for a prefill measured with an eviction policy (statistics gathered during
 *                      the timed prefill, then one compression): the policy and its scoring times;
 *                      null for a plain test
 */
public record BenchResult(
        BenchedModel model,
        String backend,
        int threads,
        BenchCase test,
        long[] samplesNs,
        long loadNanos,
        long kvCacheBytes,
        EvictionTiming eviction) {

    public BenchResult(
            BenchedModel model,
            String backend,
            int threads,
            BenchCase test,
            long[] samplesNs,
            long loadNanos,
            long kvCacheBytes) {
        this(model, backend, threads, test, samplesNs, loadNanos, kvCacheBytes, null);
    }

    public BenchResult {
        if (samplesNs.length == 0) {
            throw new IllegalArgumentException("no repetitions");
        }
        samplesNs = samplesNs.clone();
    }

    @Override
    public long[] samplesNs() {
        return samplesNs.clone();
    }

    /** Tokens/s of each repetition: llama-bench averages these, not the times. */
    public double[] tokensPerSecond() {
        double[] ts = new double[samplesNs.length];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = test.tokens() * 1e9 / samplesNs[i];
        }
        return ts;
    }

    public SampleStats throughput() {
        return SampleStats.of(tokensPerSecond());
    }

    public SampleStats nanos() {
        double[] ns = new double[samplesNs.length];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = samplesNs[i];
        }
        return SampleStats.of(ns);
    }
}

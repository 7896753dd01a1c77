package org.jacap.bench.eval;

import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/**
 * Percentile bootstrap over documents. The resamples are drawn once from the seed and reused for
 * every (policy, ratio) cell, so the intervals are paired: each cell sees the same documents.
 */
public final class PairedBootstrap {
    private final int[][] resamples;

    public PairedBootstrap(int documents, int resampleCount, long seed) {
        if (documents < 1 || resampleCount < 1) {
            throw new IllegalArgumentException("bootstrap needs at least one document and one resample");
        }
        SplittableRandom random = new SplittableRandom(seed);
        resamples = new int[resampleCount][documents];
        for (int[] r : resamples) {
            for (int i = 0; i < documents; i++) {
                r[i] = random.nextInt(documents);
            }
        }
    }

    public int documents() {
        return resamples[0].length;
    }

    /**
     * Point value on all documents and the 2.5/97.5 percentiles of the statistic over resamples.
     * The statistic receives document indices (with repetitions).
     */
    public Estimate estimate(ToDoubleFunction<int[]> statistic) {
        int[] all = new int[documents()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        double point = statistic.applyAsDouble(all);
        double[] values = new double[resamples.length];
        for (int b = 0; b < resamples.length; b++) {
            values[b] = statistic.applyAsDouble(resamples[b]);
        }
        java.util.Arrays.sort(values);
        return new Estimate(point, Percentile.ofSorted(values, 0.025), Percentile.ofSorted(values, 0.975));
    }

    /** The mean of one value per document, with its interval. */
    public Estimate mean(double[] perDocument) {
        if (perDocument.length != documents()) {
            throw new IllegalArgumentException(perDocument.length + " values for " + documents() + " documents");
        }
        return estimate(idx -> {
            double sum = 0;
            for (int i : idx) {
                sum += perDocument[i];
            }
            return sum / idx.length;
        });
    }
}

package org.jacap.bench.report;

/**
 * Mean and sample standard deviation (Bessel-corrected, as llama-bench reports) of repeated
 * measurements. One sample has a standard deviation of 0.
 */
public record SampleStats(double mean, double stddev, int count) {

    public static SampleStats of(double... samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        double sum = 0;
        for (double s : samples) {
            sum += s;
        }
        double mean = sum / samples.length;
        if (samples.length == 1) {
            return new SampleStats(mean, 0, 1);
        }
        // Two passes: the one-pass sum-of-squares formula loses digits when stddev << mean.
        double squares = 0;
        for (double s : samples) {
            double d = s - mean;
            squares += d * d;
        }
        return new SampleStats(mean, Math.sqrt(squares / (samples.length - 1)), samples.length);
    }

    /** {@code "66.71 ± 0.12"}: the llama-bench t/s cell. */
    public String format(int decimals) {
        return Units.fixed(mean, decimals) + " ± " + Units.fixed(stddev, decimals);
    }
}

package org.jacap.bench.eval;

import org.jacap.bench.report.Units;

/** A statistic over documents with its bootstrap 95% confidence interval. */
public record Estimate(double value, double low, double high) {

    public static Estimate exact(double value) {
        return new Estimate(value, value, value);
    }

    /** {@code "0.0123 [0.0101, 0.0150]"}. */
    public String format(int decimals) {
        return Units.fixed(value, decimals) + " [" + Units.fixed(low, decimals) + ", " + Units.fixed(high, decimals)
                + "]";
    }
}

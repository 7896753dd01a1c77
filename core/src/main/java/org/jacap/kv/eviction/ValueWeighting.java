package org.jacap.kv.eviction;

import java.util.Arrays;
import java.util.Locale;

/**
 * Applies a {@link ValueWeight} to one query head's attention scores: shared by the observed
 * (H2O) and observation-window (SnapKV) scorers, so both weigh an entry the same way.
 */
final class ValueWeighting {
    private ValueWeighting() {}

    /** The spec parameters {@code values=V,group=G}, as the registry parses them. */
    static String spec(ValueWeight values, GroupReduction group) {
        return "values=" + values.spelling() + ",group=" + group.name().toLowerCase(Locale.ROOT);
    }

    /** Query head h's slice of the W_O column energies, or null (no energies, or not {@code OUTPUT}). */
    static double[] energies(LayerSnapshot layer, int h, ValueWeight values) {
        double[] e = layer.outputEnergy();
        if (values != ValueWeight.OUTPUT || e == null) {
            return null;
        }
        int d = layer.shape().headDim();
        return Arrays.copyOfRange(e, h * d, (h + 1) * d);
    }

    /**
     * Multiplies the attention of entries {@code 0 .. attention.length-1} by their value weight, in
     * place; the mean value ō is the one these scores weigh (so entries left out, such as a
     * protected window, do not enter it). {@code norms}: {@link #valueNorms} for {@code NORM}.
     */
    static void weigh(ValueWeight values, double[] attention, KvHeadRows rows, double[] norms, double[] energy) {
        switch (values) {
            case NONE -> {}
            case NORM -> {
                for (int i = 0; i < attention.length; i++) {
                    attention[i] *= norms[i];
                }
            }
            case DEVIATION, OUTPUT -> {
                int n = attention.length;
                int d = rows.headDim();
                double[] v = rows.values();
                double[] mean = new double[d];
                double total = 0;
                for (int i = 0; i < n; i++) {
                    total += attention[i];
                    for (int c = 0; c < d; c++) {
                        mean[c] += attention[i] * v[i * d + c];
                    }
                }
                if (total > 0) {
                    for (int c = 0; c < d; c++) {
                        mean[c] /= total;
                    }
                }
                for (int i = 0; i < n; i++) {
                    double sq = 0;
                    for (int c = 0; c < d; c++) {
                        double x = v[i * d + c] - mean[c];
                        sq += energy == null ? x * x : energy[c] * x * x;
                    }
                    attention[i] *= Math.sqrt(sq);
                }
            }
        }
    }

    /** ‖v_i‖₁ of every entry. */
    static double[] valueNorms(KvHeadRows rows) {
        int n = rows.length();
        int d = rows.headDim();
        double[] v = rows.values();
        double[] norms = new double[n];
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int c = 0; c < d; c++) {
                sum += Math.abs(v[i * d + c]);
            }
            norms[i] = sum;
        }
        return norms;
    }
}

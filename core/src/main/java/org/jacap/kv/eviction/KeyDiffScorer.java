package org.jacap.kv.eviction;

import org.jacap.kv.eviction.math.DoubleLanes;

/**
 * KeyDiff: {@code −cos(k_i, a)} with anchor {@code a = mean_j k_j/max(‖k_j‖, normalizeEps)} over
 * all entries of the head; keys unlike the average key are kept (diversity).
 */
public record KeyDiffScorer(double normalizeEps, double cosineEps) implements KvScorer {
    public static KeyDiffScorer defaults() {
        return new KeyDiffScorer(1e-12, 1e-8);
    }

    @Override
    public String name() {
        return "keydiff";
    }

    @Override
    public String spec() {
        return name() + ":normalize_eps=" + normalizeEps + ",cosine_eps=" + cosineEps;
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.NOTHING;
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        int d = layer.shape().headDim();
        double[][] s = new double[layer.heads().length][];
        for (int g = 0; g < s.length; g++) {
            HeadColumns cols = HeadColumns.keysOf(layer.head(g));
            int n = cols.n;
            double[] norms = cols.keyNormsSquared();
            double[] clamped = new double[n];
            for (int i = 0; i < n; i++) {
                norms[i] = Math.sqrt(norms[i]);
                clamped[i] = Math.max(norms[i], normalizeEps);
            }
            double[] anchor = new double[d];
            for (int a = 0; a < d; a++) {
                double sum = 0;
                for (int i = 0; i < n; i++) {
                    sum += cols.keys[a * n + i] / clamped[i];
                }
                anchor[a] = sum / n;
            }
            double anchorNorm = Math.sqrt(DoubleLanes.dotScalar(anchor, 0, anchor, 0, d));
            if (trace.enabled()) {
                trace.record("anchor", g, anchor.clone());
            }
            double[] dots = new double[n];
            cols.keyDots(anchor, 0, n, dots, 0);
            for (int i = 0; i < n; i++) {
                dots[i] = -dots[i] / Math.max(norms[i] * anchorNorm, cosineEps);
            }
            s[g] = dots;
        }
        return s;
    }
}

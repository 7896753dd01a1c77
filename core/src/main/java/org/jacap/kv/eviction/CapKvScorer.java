package org.jacap.kv.eviction;

import org.jacap.JacapException;

/**
 * CapKV (jiamingyy/kvpress CapPress): ridge leverage of the values weighted by query relevance.
 * Per query head, {@code w_i = exp(τ·(c_i − max_j c_j))} with {@code c_i = cos(k_i, R̄·mean q_pre)},
 * {@code s_i = w_i · v_iᵀ(I + Σ (w_j + ε) v_j v_jᵀ)⁻¹ v_i}; group mean; the first {@code nSink}
 * entries are protected with scores {@code max + (sinkBonus + nSink − 1 − i)}.
 */
public record CapKvScorer(int nSink, double tau, double epsilon, double sinkBonus) implements KvScorer {
    public CapKvScorer {
        if (nSink < 0) throw new JacapException("capkv: n_sink must be >= 0");
    }

    /** The author's defaults: 4 sinks, τ = 5, ε = 1e-6, sink bonus 1. */
    public static CapKvScorer defaults() {
        return new CapKvScorer(4, 5.0, 1e-6, 1.0);
    }

    @Override
    public String name() {
        return "capkv";
    }

    @Override
    public String spec() {
        return name() + ":n_sink=" + nSink + ",tau=" + tau + ",epsilon=" + epsilon + ",sink_bonus=" + sinkBonus;
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.of(nSink, 0, QueryStatistic.PRE_ROPE_MEAN);
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        AttentionShape shape = layer.shape();
        QueryStatistics stats = layer.queries();
        AveragedRotation rotation = layer.requireRotation(name());
        int d = shape.headDim();
        int group = shape.groupSize();
        double[] mean = new double[d];
        double[] mu = new double[d];
        double[][] s = new double[shape.kvHeads()][];
        for (int g = 0; g < shape.kvHeads(); g++) {
            HeadColumns cols = HeadColumns.of(layer.head(g));
            int n = cols.n;
            int m = Math.max(0, n - nSink);
            s[g] = new double[n];
            if (m == 0) continue;
            double[] keyNorm = cols.keyNormsSquared();
            for (int i = 0; i < n; i++) keyNorm[i] = Math.max(Math.sqrt(keyNorm[i]), 1e-12);
            double[] w = new double[m];
            double[] lev = new double[m];
            for (int h = shape.firstQueryHead(g); h < shape.firstQueryHead(g) + group; h++) {
                stats.meanInto(h, mean);
                rotation.apply(mean, mu);
                double muNorm = Math.max(Math.sqrt(DoubleLanes.dotScalar(mu, 0, mu, 0, d)), 1e-12);
                cols.keyDots(mu, nSink, m, w, 0);
                double maxLogit = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < m; i++) {
                    double c = Math.clamp(w[i] / (muNorm * keyNorm[nSink + i]), -1.0, 1.0);
                    w[i] = tau * c;
                    maxLogit = Math.max(maxLogit, w[i]);
                }
                if (trace.enabled()) {
                    trace.record("mu", h, mu.clone());
                    double[] cos = new double[m];
                    for (int i = 0; i < m; i++) cos[i] = w[i] / tau;
                    trace.record("cos", h, cos);
                }
                for (int i = 0; i < m; i++) w[i] = Math.exp(w[i] - maxLogit);
                LeverageScores.ridgeLeverage(cols.values, n, nSink, m, d, w, 0, epsilon, lev, 0);
                if (trace.enabled()) {
                    trace.record("w", h, w.clone());
                    trace.record("lev", h, lev.clone());
                }
                for (int i = 0; i < m; i++) s[g][nSink + i] += w[i] * lev[i];
            }
            for (int i = nSink; i < n; i++) s[g][i] /= group;
        }
        ProtectedScores.protectSinks(s, nSink, sinkBonus);
        return s;
    }
}

package org.jacap.kv.eviction;

import org.jacap.JacapException;
import org.jacap.kv.eviction.math.DoubleLanes;

/**
 * CapKV (jiamingyy/kvpress CapPress): ridge leverage of the values weighted by query relevance.
 * Per query head, {@code w_i = exp(τ·(c_i − max_j c_j))} with {@code c_i = cos(k_i, R̄·mean q_pre)},
 * {@code s_i = w_i · v_iᵀ(I + Σ (w_j + ε) v_j v_jᵀ)⁻¹ v_i}; group mean; the first {@code nSink}
 * entries are protected with scores {@code max + (sinkBonus + nSink − 1 − i)}.
 */
public record CapKvScorer(int nSink, double tau, double epsilon, double sinkBonus, CapacityAblation ablation)
        implements KvScorer {
    public CapKvScorer {
        if (nSink < 0) {
            throw new JacapException("capkv: n_sink must be >= 0");
        }
        if (ablation == null) {
            ablation = CapacityAblation.DEFAULT;
        }
    }

    /** The paper configuration with the given parameters. */
    public CapKvScorer(int nSink, double tau, double epsilon, double sinkBonus) {
        this(nSink, tau, epsilon, sinkBonus, CapacityAblation.DEFAULT);
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
        return name() + ":n_sink=" + nSink + ",tau=" + tau + ",epsilon=" + epsilon + ",sink_bonus=" + sinkBonus
                + ablation.specSuffix();
    }

    @Override
    public int protectedSinks() {
        return nSink;
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.of(nSink, 0, QueryStatistic.PRE_ROPE_MEAN);
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        QueryStatistics stats = layer.queries();
        AveragedRotation rotation = layer.requireRotation(name());
        int d = layer.shape().headDim();
        double[] mean = new double[d];
        double[] mu = new double[d];
        return CapacityScores.score(layer, trace, ablation, nSink, epsilon, sinkBonus, (cols, from, m) -> {
            double[] keyNorm = cols.keyNormsSquared();
            for (int i = 0; i < cols.n; i++) {
                keyNorm[i] = Math.max(Math.sqrt(keyNorm[i]), 1e-12);
            }
            double[] cos = new double[m];
            return (h, w) -> {
                stats.meanInto(h, mean);
                rotation.apply(mean, mu);
                double muNorm = Math.max(Math.sqrt(DoubleLanes.dotScalar(mu, 0, mu, 0, d)), 1e-12);
                cols.keyDots(mu, from, m, cos, 0);
                double maxLogit = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < m; i++) {
                    cos[i] = Math.clamp(cos[i] / (muNorm * keyNorm[from + i]), -1.0, 1.0);
                    w[i] = tau * cos[i];
                    maxLogit = Math.max(maxLogit, w[i]);
                }
                for (int i = 0; i < m; i++) {
                    w[i] = Math.exp(w[i] - maxLogit);
                }
                if (trace.enabled()) {
                    trace.record("mu", h, mu.clone());
                    trace.record("cos", h, cos.clone());
                }
            };
        });
    }
}

package org.jacap.kv.eviction;

import java.util.EnumSet;
import org.jacap.JacapException;

/**
 * ExpectedAttention (kvpress): the softmax over entries of the expected logit under a Gaussian
 * model of future queries, {@code z_i = k_i·μ'/√d + k_iᵀΣ'k_i/(2d)} with {@code μ' = R̄μ},
 * {@code Σ' = R̄ΣR̄ᵀ} from the pre-RoPE queries after the sinks; group mean, then
 * {@code (p + ε)·‖v_i‖}. The first {@code nSink} entries are protected.
 */
public record ExpectedAttentionScorer(int nSink, double epsilon, boolean useVnorm, boolean useCovariance)
        implements KvScorer {

    public ExpectedAttentionScorer {
        if (nSink < 0) {
            throw new JacapException("expected: n_sink must be >= 0");
        }
    }

    /** The kvpress registry configuration: 4 sinks, ε = 0.01, value norms, full covariance. */
    public static ExpectedAttentionScorer defaults() {
        return new ExpectedAttentionScorer(4, 0.01, true, true);
    }

    @Override
    public String name() {
        return "expected";
    }

    @Override
    public String spec() {
        return name() + ":n_sink=" + nSink + ",epsilon=" + epsilon + ",use_vnorm=" + useVnorm + ",use_covariance="
                + useCovariance;
    }

    @Override
    public int protectedSinks() {
        return nSink;
    }

    @Override
    public StatisticsSpec statistics() {
        EnumSet<QueryStatistic> needs = EnumSet.of(QueryStatistic.PRE_ROPE_MEAN);
        if (useCovariance) {
            needs.add(QueryStatistic.PRE_ROPE_COVARIANCE);
        }
        return new StatisticsSpec(needs, nSink, 0);
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        AttentionShape shape = layer.shape();
        QueryStatistics stats = layer.queries();
        AveragedRotation rotation = layer.requireRotation(name());
        int d = shape.headDim();
        int group = shape.groupSize();
        double sqrtD = Math.sqrt(d);
        double[] mean = new double[d];
        double[] mu = new double[d];
        double[] cov = new double[d * d];
        double[] covRot = new double[d * d];
        double[][] s = new double[shape.kvHeads()][];
        for (int g = 0; g < shape.kvHeads(); g++) {
            HeadColumns cols = HeadColumns.of(layer.head(g));
            int n = cols.n;
            int m = Math.max(0, n - nSink);
            s[g] = new double[n];
            if (m == 0) {
                continue;
            }
            double[] prob = new double[m];
            double[] z = new double[m];
            double[] quad = new double[m];
            double[] partial = new double[m];
            for (int h = shape.firstQueryHead(g); h < shape.firstQueryHead(g) + group; h++) {
                stats.meanInto(h, mean);
                rotation.apply(mean, mu);
                cols.keyDots(mu, nSink, m, z, 0);
                for (int i = 0; i < m; i++) {
                    z[i] /= sqrtD;
                }
                if (useCovariance) {
                    stats.covarianceInto(h, cov);
                    rotation.applyToCovariance(cov, covRot);
                    cols.keyQuadraticForms(covRot, nSink, m, quad, partial);
                    for (int i = 0; i < m; i++) {
                        z[i] += quad[i] / (2.0 * d);
                    }
                }
                if (trace.enabled()) {
                    trace.record("mu_rot", h, mu.clone());
                    trace.record("logits", h, z.clone());
                    if (useCovariance) {
                        trace.record("cov_rot", h, covRot.clone());
                    }
                }
                SoftmaxRows.softmax(z, m);
                for (int i = 0; i < m; i++) {
                    prob[i] += z[i];
                }
            }
            for (int i = 0; i < m; i++) {
                prob[i] /= group;
            }
            if (trace.enabled()) {
                trace.record("group_prob", g, prob.clone());
            }
            double[] vnorm = useVnorm ? cols.valueNormsSquared() : null;
            for (int i = 0; i < m; i++) {
                s[g][nSink + i] = useVnorm ? (prob[i] + epsilon) * Math.sqrt(vnorm[nSink + i]) : prob[i] + epsilon;
            }
        }
        ProtectedScores.protectSinks(s, nSink, 1.0);
        return s;
    }
}

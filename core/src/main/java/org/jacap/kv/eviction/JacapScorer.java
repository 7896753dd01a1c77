package org.jacap.kv.eviction;

import java.util.EnumSet;
import org.jacap.JacapException;
import org.jacap.kv.eviction.math.DoubleLanes;

/**
 * Jacap (arXiv 2609.08131, reconstructed as in docs/eviction-spec.md §2.3): CapKV's leverage with the
 * Jacobian weight {@code w_i = ᾱ_i²(1−ᾱ_i)²κ_i/d}, where {@code ᾱ = softmax(K μ/(τ√d))} over the
 * scored entries, {@code μ = R̄·mean q_pre} and {@code κ_i = k_iᵀΛk_i} with Λ the rotated diagonal
 * query variance. Weights are formed in the log domain (α² underflows) and, when
 * {@code normalize}, scaled to max 1 as CapKV's are; {@code normalize=false} is the literal form.
 *
 * @param fullCovariance ablation: Λ = R̄ΣR̄ᵀ with the full query covariance instead of its diagonal
 * @param observedAlpha  ablation ({@code alpha=observed}): ᾱ is the attention each entry has received
 *                       (H2O's mean over the queries that saw it), normalised over the scored entries,
 *                       instead of the softmax of the mean query's logits
 */
public record JacapScorer(
        int nSink,
        double tau,
        double epsilon,
        boolean normalize,
        boolean divideByD,
        boolean fullCovariance,
        double sinkBonus,
        CapacityAblation ablation,
        boolean observedAlpha)
        implements KvScorer {
    public JacapScorer {
        if (nSink < 0 || !(tau > 0)) {
            throw new JacapException("jacap: needs n_sink >= 0 and tau > 0");
        }
        if (ablation == null) {
            ablation = CapacityAblation.DEFAULT;
        }
    }

    /** The reconstruction with the given parameters: diagonal Λ, no other ablation. */
    public JacapScorer(int nSink, double tau, double epsilon, boolean normalize, boolean divideByD, double sinkBonus) {
        this(nSink, tau, epsilon, normalize, divideByD, false, sinkBonus, CapacityAblation.DEFAULT, false);
    }

    /** The reconstruction's weights with ᾱ taken from the attention the entries received ({@code alpha=observed}). */
    public static JacapScorer observed() {
        return new JacapScorer(4, 10.0, 1e-6, true, true, false, 1.0, CapacityAblation.DEFAULT, true);
    }

    /** Reconstruction defaults: 4 sinks, τ = 10, ε = 1e-6, max-normalised, with 1/d. */
    public static JacapScorer defaults() {
        return new JacapScorer(4, 10.0, 1e-6, true, true, 1.0);
    }

    /** The literal Algorithm 1 weights (no max-normalisation). */
    public static JacapScorer literal() {
        return new JacapScorer(4, 10.0, 1e-6, false, true, 1.0);
    }

    @Override
    public String name() {
        return observedAlpha ? "jacap-observed" : normalize ? "jacap-paper" : "jacap-literal";
    }

    @Override
    public String spec() {
        return name() + ":n_sink=" + nSink + ",tau=" + tau + ",epsilon=" + epsilon + ",normalize=" + normalize
                + ",divide_by_d=" + divideByD + ",sink_bonus=" + sinkBonus
                + (fullCovariance ? ",covariance=full" : "") + (observedAlpha ? ",alpha=observed" : "")
                + ablation.specSuffix();
    }

    @Override
    public int protectedSinks() {
        return nSink;
    }

    @Override
    public StatisticsSpec statistics() {
        EnumSet<QueryStatistic> needs = EnumSet.of(
                QueryStatistic.PRE_ROPE_MEAN,
                fullCovariance ? QueryStatistic.PRE_ROPE_COVARIANCE : QueryStatistic.PRE_ROPE_VARIANCE);
        if (observedAlpha) {
            needs.add(QueryStatistic.ATTENTION_RECEIVED);
        }
        return new StatisticsSpec(needs, nSink, 0);
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        QueryStatistics stats = layer.queries();
        AveragedRotation rotation = layer.requireRotation(name());
        int d = layer.shape().headDim();
        double logitScale = tau * Math.sqrt(d);
        double logD = divideByD ? Math.log(d) : 0.0;
        double[] mean = new double[d];
        double[] variance = new double[fullCovariance ? d * d : d];
        double[] mu = new double[d];
        double[] lambda = new double[fullCovariance ? d * d : d];
        return CapacityScores.score(layer, trace, ablation, nSink, epsilon, sinkBonus, (cols, from, m) -> {
            double[] logAlpha = new double[m];
            double[] kappa = new double[m];
            double[] scratch = new double[m];
            return (h, w) -> {
                if (fullCovariance) {
                    stats.covarianceInto(h, variance);
                    rotation.applyToCovariance(variance, lambda);
                    cols.keyQuadraticForms(lambda, from, m, kappa, scratch);
                } else {
                    stats.varianceInto(h, variance);
                    rotation.applyToDiagonal(variance, lambda);
                    logitVariances(cols, lambda, from, m, kappa, scratch);
                }
                if (observedAlpha) {
                    observedLogAlpha(stats, h, from, m, logAlpha);
                } else {
                    stats.meanInto(h, mean); // μ is only the predicted ᾱ's
                    rotation.apply(mean, mu);
                    predictedLogAlpha(cols, mu, logitScale, from, m, logAlpha);
                }
                double maxLogW = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < m; i++) {
                    double la = logAlpha[i];
                    w[i] = 2 * la + 2 * Math.log1p(-Math.exp(la)) + Math.log(kappa[i]) - logD;
                    maxLogW = Math.max(maxLogW, w[i]);
                }
                // all weights 0 (one scored entry, or κ ≡ 0): nothing to normalise
                double shift = normalize && maxLogW > Double.NEGATIVE_INFINITY ? maxLogW : 0.0;
                for (int i = 0; i < m; i++) {
                    w[i] = Math.exp(w[i] - shift);
                }
                if (trace.enabled()) {
                    if (!observedAlpha) {
                        trace.record("mu", h, mu.clone());
                    }
                    trace.record(fullCovariance ? "lambda_full" : "lambda", h, lambda.clone());
                    trace.record("log_alpha", h, logAlpha.clone());
                    trace.record("kappa", h, kappa.clone());
                }
            };
        });
    }

    /** {@code log ᾱ = log softmax(K μ/(τ√d))} over the scored entries. */
    private static void predictedLogAlpha(
            HeadColumns cols, double[] mu, double logitScale, int from, int m, double[] logAlpha) {
        cols.keyDots(mu, from, m, logAlpha, 0);
        double maxZ = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < m; i++) {
            logAlpha[i] /= logitScale;
            maxZ = Math.max(maxZ, logAlpha[i]);
        }
        double sum = 0;
        for (int i = 0; i < m; i++) {
            sum += Math.exp(logAlpha[i] - maxZ);
        }
        double logSumExp = maxZ + Math.log(sum);
        for (int i = 0; i < m; i++) {
            logAlpha[i] -= logSumExp;
        }
    }

    /**
     * {@code log ᾱ_i} from the attention entry {@code from+i} received from query head {@code h},
     * per query that saw it, normalised to sum 1 over the scored entries; an entry no query
     * attended gets {@code -∞} (weight 0).
     */
    static void observedLogAlpha(QueryStatistics stats, int h, int from, int m, double[] logAlpha) {
        double total = 0;
        for (int i = 0; i < m; i++) {
            logAlpha[i] = stats.meanAttentionReceived(h, from + i);
            total += logAlpha[i];
        }
        for (int i = 0; i < m; i++) {
            logAlpha[i] = total > 0 ? Math.log(logAlpha[i] / total) : Double.NEGATIVE_INFINITY;
        }
    }

    /** {@code κ_i = Σ_a Λ_a k_{i,a}²}: the variance of entry i's logit under the query prior. */
    private static void logitVariances(
            HeadColumns cols, double[] lambda, int from, int m, double[] kappa, double[] scaledKey) {
        java.util.Arrays.fill(kappa, 0, m, 0.0);
        for (int a = 0; a < cols.d; a++) {
            int off = a * cols.n + from;
            java.util.Arrays.fill(scaledKey, 0, m, 0.0);
            DoubleLanes.axpy(lambda[a], cols.keys, off, scaledKey, 0, m);
            DoubleLanes.multiplyAdd(cols.keys, off, scaledKey, 0, kappa, 0, m);
        }
    }
}

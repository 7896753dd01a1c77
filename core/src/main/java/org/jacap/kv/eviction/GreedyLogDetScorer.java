package org.jacap.kv.eviction;

import org.jacap.JacapException;
import org.jacap.kv.eviction.math.DoubleLanes;

/**
 * Ablation, in neither paper (docs/eviction-spec.md §3): greedy log-det selection with the weights of
 * CapKV or Jacap. Starting from {@code A = λI}, repeatedly take the entry with the largest
 * {@code Σ_h log(1 + w_hi·u_iᵀA_h⁻¹u_i)} over the GQA group, updating {@code A_h⁻¹} and the
 * quadratic forms by Sherman–Morrison. The greedy order does not depend on the budget, so it is
 * encoded as scores: the r-th pick scores {@code 1 + P − r} (≥ 2); entries not picked within
 * {@code maxPicks} score {@code gain/(1 + gain)} (< 1). Cost {@code O(P·(m·d + d²))} per query head.
 */
public record GreedyLogDetScorer(KvScorer weights, int maxPicks) implements KvScorer {
    public GreedyLogDetScorer {
        if (!(weights instanceof CapKvScorer || weights instanceof JacapScorer)) {
            throw new JacapException("greedy: weights must come from capkv or jacap");
        }
        if (maxPicks < 0) {
            throw new JacapException("greedy: max_picks must be >= 0");
        }
    }

    @Override
    public String name() {
        return "greedy";
    }

    @Override
    public String spec() {
        return name() + ":weights=" + weights.name() + ",max_picks=" + maxPicks;
    }

    @Override
    public StatisticsSpec statistics() {
        return weights.statistics();
    }

    @Override
    public int protectedSinks() {
        return weights.protectedSinks(); // its picks protect the sinks of the scorer whose weights it uses
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        AttentionShape shape = layer.shape();
        int hq = shape.queryHeads();
        double[][] w = new double[hq][];
        weights.score(layer, (name, row, values) -> {
            if (name.equals("w")) {
                w[row] = values;
            }
        });
        int nSink = weights.protectedSinks();
        double sinkBonus;
        double ridge;
        switch (weights) {
            case CapKvScorer c -> {
                sinkBonus = c.sinkBonus();
                ridge = c.ablation().ridge();
            }
            case JacapScorer j -> {
                sinkBonus = j.sinkBonus();
                ridge = j.ablation().ridge();
            }
            default -> throw new IllegalStateException();
        }
        int d = shape.headDim();
        int group = shape.groupSize();
        double[][] s = new double[shape.kvHeads()][];
        for (int g = 0; g < shape.kvHeads(); g++) {
            HeadColumns cols = HeadColumns.of(layer.head(g));
            int n = cols.n;
            s[g] = new double[n];
            int h0 = shape.firstQueryHead(g);
            if (w[h0] == null) {
                continue;
            } // nothing scored in this head
            int m = w[h0].length;
            int from = n - m;
            double[][] inverse = new double[group][d * d];
            double[][] quad = new double[group][m];
            double[] norms = cols.valueNormsSquared();
            for (int k = 0; k < group; k++) {
                for (int a = 0; a < d; a++) {
                    inverse[k][a * d + a] = 1.0 / ridge;
                }
                for (int i = 0; i < m; i++) {
                    quad[k][i] = norms[from + i] / ridge;
                }
            }
            boolean[] picked = new boolean[m];
            double[] v = new double[d];
            double[] z = new double[d];
            double[] dots = new double[m];
            int picks = Math.min(maxPicks, m);
            for (int r = 0; r < picks; r++) {
                int best = -1;
                double bestGain = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < m; i++) {
                    if (picked[i]) {
                        continue;
                    }
                    double gain = gain(w, quad, h0, group, i);
                    if (gain > bestGain) {
                        bestGain = gain;
                        best = i;
                    }
                }
                picked[best] = true;
                s[g][from + best] = 1.0 + (picks - r);
                for (int a = 0; a < d; a++) {
                    v[a] = cols.values[a * n + from + best];
                }
                for (int k = 0; k < group; k++) {
                    double[] inv = inverse[k];
                    for (int a = 0; a < d; a++) {
                        z[a] = DoubleLanes.dot(inv, a * d, v, 0, d);
                    }
                    double wj = w[h0 + k][best];
                    double c = wj / (1.0 + wj * quad[k][best]);
                    cols.valueDots(z, from, m, dots, 0);
                    for (int i = 0; i < m; i++) {
                        quad[k][i] -= c * dots[i] * dots[i];
                    }
                    for (int a = 0; a < d; a++) {
                        DoubleLanes.axpy(-c * z[a], z, 0, inv, a * d, d);
                    }
                }
            }
            for (int i = 0; i < m; i++) {
                if (picked[i]) {
                    continue;
                }
                double gain = gain(w, quad, h0, group, i);
                s[g][from + i] = gain / (1.0 + gain);
            }
        }
        ProtectedScores.protectSinks(s, nSink, sinkBonus);
        return s;
    }

    /** Entry i's log-det gain summed over the group's query heads: {@code Σ_k log(1 + w_ki·q_ki)}. */
    private static double gain(double[][] w, double[][] quad, int h0, int group, int i) {
        double gain = 0;
        for (int k = 0; k < group; k++) {
            gain += Math.log1p(w[h0 + k][i] * Math.max(quad[k][i], 0.0));
        }
        return gain;
    }
}

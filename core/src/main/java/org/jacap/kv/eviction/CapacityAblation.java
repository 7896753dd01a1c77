package org.jacap.kv.eviction;

import org.jacap.JacapException;
import org.jacap.kv.eviction.math.LeverageScores;
import org.jacap.kv.eviction.math.LeverageSolver;

/**
 * Switches of the capacity scorers that neither paper fixes (docs/eviction-spec.md §2.3), kept for
 * ablations. The defaults reproduce CapPress and the reconstruction exactly.
 *
 * @param ridge        λ in {@code A = λI + Σ (w+ε) v vᵀ}; sets the relevance/diversity trade-off
 * @param group        how query-head scores become a KV-head score
 * @param includeSinks put the sinks in the weight pool (softmax/max shift) and in A; they stay protected
 * @param solver       how the leverage is computed: the Cholesky fast path or the design card's QR
 */
public record CapacityAblation(double ridge, GroupReduction group, boolean includeSinks, LeverageSolver solver) {
    public static final CapacityAblation DEFAULT =
            new CapacityAblation(1.0, GroupReduction.MEAN, false, LeverageSolver.CHOLESKY);

    public CapacityAblation {
        if (!(ridge > 0) || Double.isInfinite(ridge)) {
            throw new JacapException("ridge must be a positive number, got " + ridge);
        }
        if (group == null) {
            throw new JacapException("group reduction missing");
        }
        if (solver == null) {
            throw new JacapException("leverage solver missing");
        }
    }

    /** The first entry of n that the weights and A cover: 0 with {@code includeSinks}, else the first past the sinks. */
    int firstScored(int nSink, int n) {
        return includeSinks ? 0 : Math.min(nSink, n);
    }

    /** ℓ of entries {@code from .. from+m-1} of {@code cols} under weights {@code w}, by this solver and ridge. */
    void leverage(HeadColumns cols, int from, int m, double[] w, double epsilon, double[] lev) {
        LeverageScores.ridgeLeverage(solver, cols.values, cols.n, from, m, cols.d, w, 0, epsilon, ridge, lev, 0);
    }

    /**
     * Adds query head {@code headInGroup}'s {@code s = w·ℓ} (w, not w + ε) to the KV head's scores by
     * the group reduction; {@code lev} is overwritten with it.
     */
    void accumulateWeighted(double[] scores, double[] lev, double[] w, int from, int n, int headInGroup) {
        for (int i = 0; i < w.length; i++) {
            lev[i] *= w[i];
        }
        group.accumulate(scores, lev, from, n, headInGroup);
    }

    /** Spec-string suffix for the non-default switches, e.g. {@code ",ridge=0.1,group=max"}. */
    String specSuffix() {
        StringBuilder s = new StringBuilder();
        if (ridge != DEFAULT.ridge) {
            s.append(",ridge=").append(ridge);
        }
        if (group != DEFAULT.group) {
            s.append(",group=").append(group.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (includeSinks != DEFAULT.includeSinks) {
            s.append(",include_sinks=").append(includeSinks);
        }
        if (solver != DEFAULT.solver) {
            s.append(",solver=").append(solver.name().toLowerCase(java.util.Locale.ROOT));
        }
        return s.toString();
    }
}

package org.jacap.kv.eviction;

import org.jacap.JacapException;

/**
 * Gives any scorer the same structural protection (docs/eviction-spec.md §6, rule 3: report every policy
 * also with 4 sinks + 32 recent): the first {@code sinks} and last {@code recent} entries of
 * every KV head score above all others, sinks first (lowest position first), then recent
 * (newest first). The base scorer's own protection stays below these.
 */
public record ProtectedScorer(KvScorer base, int sinks, int recent) implements KvScorer {
    public ProtectedScorer {
        if (base == null || base instanceof KeepAllScorer || base instanceof ProtectedScorer) {
            throw new JacapException("protection wraps one evicting scorer");
        }
        if (sinks < 0 || recent < 0) {
            throw new JacapException("protect_sinks and protect_recent must be >= 0");
        }
    }

    @Override
    public String name() {
        return base.name();
    }

    @Override
    public String spec() {
        String b = base.spec();
        return b + (b.contains(":") ? "," : ":") + "protect_sinks=" + sinks + ",protect_recent=" + recent;
    }

    @Override
    public BudgetAllocator allocator() {
        return base.allocator();
    }

    @Override
    public int protectedSinks() {
        return Math.max(sinks, base.protectedSinks());
    }

    @Override
    public KvScorer underBudget() {
        KvScorer b = base.underBudget();
        return b.equals(base) ? this : new ProtectedScorer(b, sinks, recent);
    }

    @Override
    public StatisticsSpec statistics() {
        return base.statistics();
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        double[][] s = base.score(layer, trace);
        double max = Double.NEGATIVE_INFINITY;
        for (double[] row : s) {
            int end = Math.max(Math.min(sinks, row.length), row.length - recent);
            for (int i = Math.min(sinks, row.length); i < end; i++) {
                max = Math.max(max, row[i]);
            }
        }
        if (max == Double.NEGATIVE_INFINITY) {
            max = 0.0;
        }
        int total = sinks + recent;
        for (double[] row : s) {
            int n = row.length;
            int sinkCount = Math.min(sinks, n);
            for (int i = 0; i < sinkCount; i++) {
                row[i] = max + (total - i);
            }
            for (int j = 0; j < Math.min(recent, n - sinkCount); j++) {
                row[n - 1 - j] = max + (total - sinks - j);
            }
        }
        return s;
    }
}

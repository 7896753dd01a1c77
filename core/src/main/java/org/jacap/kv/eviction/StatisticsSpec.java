package org.jacap.kv.eviction;

import java.util.EnumSet;
import java.util.Set;
import org.jacap.JacapException;

/**
 * What a policy needs gathered: which statistics, from which position on the pre-RoPE moments
 * count (the sinks are excluded), and how many recent queries to keep.
 */
public record StatisticsSpec(Set<QueryStatistic> needs, int momentsFromPosition, int recentQueries) {
    public static final StatisticsSpec NOTHING = new StatisticsSpec(EnumSet.noneOf(QueryStatistic.class), 0, 0);

    public StatisticsSpec {
        needs = needs.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(needs));
        if (momentsFromPosition < 0 || recentQueries < 0) {
            throw new JacapException("negative statistics parameter");
        }
        if (needs.contains(QueryStatistic.RECENT_QUERIES) && recentQueries == 0) {
            throw new JacapException("recent queries needed but window is 0");
        }
    }

    public static StatisticsSpec of(
            int momentsFromPosition, int recentQueries, QueryStatistic first, QueryStatistic... rest) {
        return new StatisticsSpec(EnumSet.of(first, rest), momentsFromPosition, recentQueries);
    }

    /**
     * What two policies need together, so one prefill can serve several policies (evaluation):
     * the larger recent window. The moments must start at the same position (same sink count).
     */
    public StatisticsSpec union(StatisticsSpec other) {
        boolean bothMoments = needsMoments() && other.needsMoments();
        if (bothMoments && momentsFromPosition != other.momentsFromPosition) {
            throw new JacapException("policies disagree on the first query position of the moments: "
                    + momentsFromPosition + " vs " + other.momentsFromPosition);
        }
        EnumSet<QueryStatistic> all = EnumSet.noneOf(QueryStatistic.class);
        all.addAll(needs);
        all.addAll(other.needs);
        int from = needsMoments() ? momentsFromPosition : other.momentsFromPosition;
        return new StatisticsSpec(all, from, Math.max(recentQueries, other.recentQueries));
    }

    /** Whether statistics gathered for this spec serve a scorer that needs {@code other}. */
    public boolean covers(StatisticsSpec other) {
        if (!needs.containsAll(other.needs)) {
            return false;
        }
        if (other.needsMoments() && momentsFromPosition != other.momentsFromPosition) {
            return false;
        }
        return !other.needs(QueryStatistic.RECENT_QUERIES) || recentQueries >= other.recentQueries;
    }

    public boolean needs(QueryStatistic statistic) {
        return needs.contains(statistic);
    }

    /** Any pre-RoPE moment at all. */
    public boolean needsMoments() {
        return needs(QueryStatistic.PRE_ROPE_MEAN)
                || needs(QueryStatistic.PRE_ROPE_VARIANCE)
                || needs(QueryStatistic.PRE_ROPE_COVARIANCE);
    }
}

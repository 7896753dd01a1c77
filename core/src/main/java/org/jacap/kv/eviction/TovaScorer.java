package org.jacap.kv.eviction;

import java.util.Arrays;
import org.jacap.JacapException;

/**
 * TOVA: the attention of the newest query, averaged over all query heads (not per group), so
 * every KV head keeps the same entries; the newest entry is protected. When KV heads hold
 * different entries (earlier per-head eviction) the average falls back to the head's own group.
 */
public record TovaScorer() implements KvScorer {
    @Override
    public String name() {
        return "tova";
    }

    @Override
    public StatisticsSpec statistics() {
        return StatisticsSpec.of(0, 1, QueryStatistic.RECENT_QUERIES);
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        AttentionShape shape = layer.shape();
        QueryStatistics stats = layer.queries();
        int hq = shape.queryHeads();
        double[] q = new double[shape.headDim()];
        double[][] rows = new double[hq][];
        HeadColumns[] columns = new HeadColumns[shape.kvHeads()];
        for (int g = 0; g < columns.length; g++) {
            columns[g] = HeadColumns.keysOf(layer.head(g));
        }
        for (int h = 0; h < hq; h++) {
            int held = stats.recentCount(h);
            if (held == 0) {
                throw new JacapException("tova: no query observed for head " + h);
            }
            KvHeadRows head = layer.head(shape.kvHeadOf(h));
            stats.recentQueryInto(h, held - 1, q);
            int visible = head.firstIndexAtOrAfter(stats.recentPosition(h, held - 1) + 1);
            rows[h] = new double[head.length()];
            SoftmaxRows.attentionRow(columns[shape.kvHeadOf(h)], q, visible, rows[h]);
            if (trace.enabled()) {
                trace.record("last_row_attention", h, Arrays.copyOf(rows[h], Math.max(0, head.length() - 1)));
            }
        }
        boolean aligned = headsAligned(layer);
        double[][] s = new double[shape.kvHeads()][];
        for (int g = 0; g < shape.kvHeads(); g++) {
            int n = layer.head(g).length();
            int from = aligned ? 0 : shape.firstQueryHead(g);
            int to = aligned ? hq : from + shape.groupSize();
            s[g] = new double[n];
            for (int h = from; h < to; h++) {
                for (int i = 0; i < n - 1; i++) {
                    s[g][i] += rows[h][i];
                }
            }
            for (int i = 0; i < n - 1; i++) {
                s[g][i] /= (to - from);
            }
        }
        int[] last = new int[s.length];
        for (int g = 0; g < s.length; g++) {
            last[g] = Math.max(0, s[g].length - 1);
        }
        ProtectedScores.protectRecent(s, last);
        return s;
    }

    private static boolean headsAligned(LayerSnapshot layer) {
        KvHeadRows first = layer.head(0);
        for (KvHeadRows h : layer.heads()) {
            if (h.length() != first.length()
                    || !Arrays.equals(h.positions(), 0, h.length(), first.positions(), 0, first.length())) {
                return false;
            }
        }
        return true;
    }
}

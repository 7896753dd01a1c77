package org.jacap.kv.eviction;

import java.util.Arrays;
import org.jacap.JacapException;

/**
 * Query statistics of one layer, gathered incrementally by the forward pass so no query has to
 * be stored: Welford moments of pre-RoPE queries, a ring of the last w post-RoPE queries, and
 * the attention each cache entry received. Only the statistics in the {@link StatisticsSpec} are
 * gathered; the other {@code observe} calls return at once.
 *
 * <p>Threading: calls for different query heads may run concurrently (every array is per head);
 * calls for the same head must not.
 */
public final class QueryStatistics {
    private final AttentionShape shape;
    private final StatisticsSpec spec;
    private final int d;
    /** {@code spec.needsMoments()} and its first position, read once: observe calls run per token and head. */
    private final boolean moments;

    private final int momentsFrom;

    private final long[] momentCount;
    private final double[][] mean;
    private final double[][] m2; // Σ (x_a − mean_a)² per dimension
    private final double[][] comoment; // Σ (x − mean)(x − mean)ᵀ, upper triangle, row-major d×d
    private final double[][] scratch; // per head: the float query widened, then the old deltas

    private final double[][] recent; // ring of w rows per head
    private final int[][] recentPositions;
    private final long[] recentTotal;

    private final double[][] received; // attention summed per cache entry
    private final int[][] seenBy; // number of queries whose softmax covered the entry
    private final int[] entries;

    public QueryStatistics(AttentionShape shape, StatisticsSpec spec) {
        this.shape = shape;
        this.spec = spec;
        this.d = shape.headDim();
        int hq = shape.queryHeads();
        this.moments = spec.needsMoments();
        this.momentsFrom = spec.momentsFromPosition();
        momentCount = new long[hq];
        mean = new double[moments ? hq : 0][d];
        m2 = new double[spec.needs(QueryStatistic.PRE_ROPE_VARIANCE) ? hq : 0][d];
        comoment = new double[spec.needs(QueryStatistic.PRE_ROPE_COVARIANCE) ? hq : 0][d * d];
        scratch = new double[hq][2 * d];
        int w = spec.needs(QueryStatistic.RECENT_QUERIES) ? spec.recentQueries() : 0;
        recent = new double[w > 0 ? hq : 0][w * d];
        recentPositions = new int[w > 0 ? hq : 0][w];
        recentTotal = new long[hq];
        boolean attention = spec.needs(QueryStatistic.ATTENTION_RECEIVED);
        received = new double[attention ? hq : 0][attention ? 64 : 0];
        seenBy = new int[attention ? hq : 0][attention ? 64 : 0];
        entries = new int[hq];
    }

    private QueryStatistics(QueryStatistics src) {
        shape = src.shape;
        spec = src.spec;
        d = src.d;
        moments = src.moments;
        momentsFrom = src.momentsFrom;
        momentCount = src.momentCount.clone();
        mean = deepCopy(src.mean);
        m2 = deepCopy(src.m2);
        comoment = deepCopy(src.comoment);
        scratch = new double[src.scratch.length][2 * d];
        recent = deepCopy(src.recent);
        recentPositions = new int[src.recentPositions.length][];
        for (int h = 0; h < recentPositions.length; h++) {
            recentPositions[h] = src.recentPositions[h].clone();
        }
        recentTotal = src.recentTotal.clone();
        received = deepCopy(src.received);
        seenBy = new int[src.seenBy.length][];
        for (int h = 0; h < seenBy.length; h++) {
            seenBy[h] = src.seenBy[h].clone();
        }
        entries = src.entries.clone();
    }

    /**
     * An independent copy: one prefill's statistics can then serve several policies (evaluation),
     * each compacting its own copy with {@link #retainEntries}.
     */
    public QueryStatistics copy() {
        return new QueryStatistics(this);
    }

    private static double[][] deepCopy(double[][] a) {
        double[][] c = new double[a.length][];
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i].clone();
        }
        return c;
    }

    public AttentionShape shape() {
        return shape;
    }

    public StatisticsSpec spec() {
        return spec;
    }

    public boolean gathers(QueryStatistic statistic) {
        return spec.needs(statistic);
    }

    // ---- observation (forward pass) ----

    /** A pre-RoPE query (after q_norm, no 1/√d) of {@code queryHead} at {@code position}. */
    public void observePreRope(int queryHead, int position, float[] q, int offset) {
        if (!moments || position < momentsFrom) {
            return;
        }
        double[] x = scratch[queryHead];
        for (int a = 0; a < d; a++) {
            x[a] = q[offset + a];
        }
        addMoment(queryHead, x, 0);
    }

    /** Double twin of {@link #observePreRope(int, int, float[], int)}. */
    public void observePreRope(int queryHead, int position, double[] q, int offset) {
        if (!moments || position < momentsFrom) {
            return;
        }
        addMoment(queryHead, q, offset);
    }

    /**
     * Replaces the moments of {@code queryHead} by those of {@code count} float rows (row r at
     * {@code data[offset + r·stride]}, at {@code positions[r]}; rows before the first moment
     * position are skipped), in two passes: e.g. the decoding window kept by the engine.
     */
    public void replaceMoments(int queryHead, float[] data, int offset, int stride, int[] positions, int count) {
        if (!moments) {
            return;
        }
        int h = queryHead;
        double[] mu = mean[h];
        java.util.Arrays.fill(mu, 0);
        long k = 0;
        for (int r = 0; r < count; r++) {
            if (positions[r] < momentsFrom) {
                continue;
            }
            k++;
            int base = offset + r * stride;
            for (int a = 0; a < d; a++) {
                mu[a] += data[base + a];
            }
        }
        momentCount[h] = k;
        if (k == 0) {
            if (m2.length > 0) {
                java.util.Arrays.fill(m2[h], 0);
            }
            if (comoment.length > 0) {
                java.util.Arrays.fill(comoment[h], 0);
            }
            return;
        }
        for (int a = 0; a < d; a++) {
            mu[a] /= k;
        }
        boolean variance = m2.length > 0;
        boolean covariance = comoment.length > 0;
        if (!variance && !covariance) {
            return;
        }
        if (variance) {
            java.util.Arrays.fill(m2[h], 0);
        }
        if (covariance) {
            java.util.Arrays.fill(comoment[h], 0);
        }
        double[] delta = scratch[h];
        for (int r = 0; r < count; r++) {
            if (positions[r] < momentsFrom) {
                continue;
            }
            int base = offset + r * stride;
            for (int a = 0; a < d; a++) {
                delta[a] = data[base + a] - mu[a];
            }
            if (variance) {
                double[] v = m2[h];
                for (int a = 0; a < d; a++) {
                    v[a] += delta[a] * delta[a];
                }
            }
            if (covariance) {
                double[] c = comoment[h];
                for (int a = 0; a < d; a++) {
                    double da = delta[a];
                    int row = a * d;
                    for (int b = a; b < d; b++) {
                        c[row + b] += da * delta[b];
                    }
                }
            }
        }
    }

    private void addMoment(int h, double[] x, int off) {
        long k = ++momentCount[h];
        double[] mu = mean[h];
        double[] delta = scratch[h];
        boolean variance = m2.length > 0;
        boolean covariance = comoment.length > 0;
        // Welford: stable where Σq² − (Σq)²/m would cancel for queries with a large mean.
        for (int a = 0; a < d; a++) {
            double old = x[off + a] - mu[a];
            mu[a] += old / k;
            double now = x[off + a] - mu[a];
            if (variance) {
                m2[h][a] += old * now;
            }
            delta[d + a] = now;
            delta[a] = old; // scratch[0..d) may hold the widened float query: read x first
        }
        if (covariance) {
            double[] c = comoment[h];
            for (int a = 0; a < d; a++) {
                double da = delta[a];
                int row = a * d;
                for (int b = a; b < d; b++) {
                    c[row + b] += da * delta[d + b];
                }
            }
        }
    }

    /** A post-RoPE query (as used in attention) of {@code queryHead} at {@code position}. */
    public void observePostRope(int queryHead, int position, float[] q, int offset) {
        if (recent.length == 0) {
            return;
        }
        int w = spec.recentQueries();
        int slot = (int) (recentTotal[queryHead]++ % w);
        double[] ring = recent[queryHead];
        for (int a = 0; a < d; a++) {
            ring[slot * d + a] = q[offset + a];
        }
        recentPositions[queryHead][slot] = position;
    }

    /** Double twin of {@link #observePostRope(int, int, float[], int)}. */
    public void observePostRope(int queryHead, int position, double[] q, int offset) {
        if (recent.length == 0) {
            return;
        }
        int w = spec.recentQueries();
        int slot = (int) (recentTotal[queryHead]++ % w);
        System.arraycopy(q, offset, recent[queryHead], slot * d, d);
        recentPositions[queryHead][slot] = position;
    }

    /**
     * The softmax row of one query of {@code queryHead} over the first {@code length} cache entries
     * of its KV head (all it could see): entry i receives {@code probabilities[offset + i]}.
     */
    public void observeAttention(int queryHead, float[] probabilities, int offset, int length) {
        if (received.length == 0) {
            return;
        }
        ensureEntries(queryHead, length);
        double[] r = received[queryHead];
        int[] s = seenBy[queryHead];
        for (int i = 0; i < length; i++) {
            r[i] += probabilities[offset + i];
            s[i]++;
        }
    }

    /** Double twin of {@link #observeAttention(int, float[], int, int)}. */
    public void observeAttention(int queryHead, double[] probabilities, int offset, int length) {
        if (received.length == 0) {
            return;
        }
        ensureEntries(queryHead, length);
        double[] r = received[queryHead];
        int[] s = seenBy[queryHead];
        for (int i = 0; i < length; i++) {
            r[i] += probabilities[offset + i];
            s[i]++;
        }
    }

    private void ensureEntries(int h, int length) {
        if (length > received[h].length) {
            int cap = Math.max(length, 2 * received[h].length);
            received[h] = Arrays.copyOf(received[h], cap);
            seenBy[h] = Arrays.copyOf(seenBy[h], cap);
        }
        entries[h] = Math.max(entries[h], length);
    }

    // ---- after eviction ----

    /** Keeps the attention sums of the entries the cache kept for {@code kvHead} (ascending indices). */
    public void retainEntries(int kvHead, int[] keptAscending) {
        if (received.length == 0) {
            return;
        }
        int g0 = shape.firstQueryHead(kvHead);
        for (int h = g0; h < g0 + shape.groupSize(); h++) {
            double[] r = received[h];
            int[] s = seenBy[h];
            // kept entries past the observed ones (e.g. an observer installed mid-sequence) have no sums
            int observed = entries[h];
            int valid = 0;
            while (valid < keptAscending.length && keptAscending[valid] < observed) {
                int i = keptAscending[valid];
                r[valid] = r[i];
                s[valid] = s[i];
                valid++;
            }
            Arrays.fill(r, valid, observed, 0.0);
            Arrays.fill(s, valid, observed, 0);
            entries[h] = valid;
        }
    }

    /** Starts a new observation set for the moments (e.g. the decoding buffer of the next event). */
    public void resetMoments() {
        Arrays.fill(momentCount, 0);
        for (double[] a : mean) {
            Arrays.fill(a, 0);
        }
        for (double[] a : m2) {
            Arrays.fill(a, 0);
        }
        for (double[] a : comoment) {
            Arrays.fill(a, 0);
        }
    }

    // ---- reading (scorers) ----

    public long momentCount(int queryHead) {
        return momentCount[queryHead];
    }

    /** Mean pre-RoPE query of the observed tokens. */
    public void meanInto(int queryHead, double[] out) {
        requireMoments(queryHead, QueryStatistic.PRE_ROPE_MEAN);
        System.arraycopy(mean[queryHead], 0, out, 0, d);
    }

    /** Population variance per dimension. */
    public void varianceInto(int queryHead, double[] out) {
        requireMoments(queryHead, QueryStatistic.PRE_ROPE_VARIANCE);
        long k = momentCount[queryHead];
        for (int a = 0; a < d; a++) {
            out[a] = m2[queryHead][a] / k;
        }
    }

    /** Population covariance, full symmetric row-major d×d. */
    public void covarianceInto(int queryHead, double[] out) {
        requireMoments(queryHead, QueryStatistic.PRE_ROPE_COVARIANCE);
        long k = momentCount[queryHead];
        double[] c = comoment[queryHead];
        for (int a = 0; a < d; a++) {
            for (int b = a; b < d; b++) {
                double v = c[a * d + b] / k;
                out[a * d + b] = v;
                out[b * d + a] = v;
            }
        }
    }

    /** Recent queries held for {@code queryHead}: min(w, observed). */
    public int recentCount(int queryHead) {
        require(QueryStatistic.RECENT_QUERIES);
        return (int) Math.min(recentTotal[queryHead], spec.recentQueries());
    }

    /** The k-th held recent query, k = 0 the oldest held. */
    public void recentQueryInto(int queryHead, int k, double[] out) {
        System.arraycopy(recent[queryHead], recentSlot(queryHead, k) * d, out, 0, d);
    }

    public int recentPosition(int queryHead, int k) {
        return recentPositions[queryHead][recentSlot(queryHead, k)];
    }

    private int recentSlot(int h, int k) {
        int held = recentCount(h);
        if (k < 0 || k >= held) {
            throw new IndexOutOfBoundsException(k);
        }
        return (int) ((recentTotal[h] - held + k) % spec.recentQueries());
    }

    /** Attention received by entry {@code i}, summed over the queries that saw it. */
    public double attentionReceived(int queryHead, int i) {
        require(QueryStatistic.ATTENTION_RECEIVED);
        return i < entries[queryHead] ? received[queryHead][i] : 0.0;
    }

    /** H2O's mean: the attention entry {@code i} received per query that saw it (0 if none did). */
    public double meanAttentionReceived(int queryHead, int i) {
        int seen = attentionSeenBy(queryHead, i);
        return seen == 0 ? 0.0 : attentionReceived(queryHead, i) / seen;
    }

    /** How many queries' softmax rows covered entry {@code i}. */
    public int attentionSeenBy(int queryHead, int i) {
        require(QueryStatistic.ATTENTION_RECEIVED);
        return i < entries[queryHead] ? seenBy[queryHead][i] : 0;
    }

    private void require(QueryStatistic statistic) {
        if (!spec.needs(statistic)) {
            throw new JacapException("query statistic " + statistic + " was not gathered for this layer");
        }
    }

    private void requireMoments(int h, QueryStatistic statistic) {
        require(statistic);
        if (momentCount[h] == 0) {
            throw new JacapException("no pre-RoPE queries observed at positions >= " + spec.momentsFromPosition()
                    + " for query head " + h);
        }
    }
}

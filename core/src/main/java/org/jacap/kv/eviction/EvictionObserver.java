package org.jacap.kv.eviction;

import java.util.List;
import org.jacap.JacapException;
import org.jacap.kv.ForwardObserver;

/**
 * Feeds one {@link QueryStatistics} per layer from the forward pass, so eviction needs no second
 * pass: pre-RoPE queries (after q-norm / bias) at their true positions, post-RoPE queries for
 * window policies, and attention rows only when the policy asks for them. Only what the
 * {@link StatisticsSpec} names is gathered; the rest of each callback returns at once.
 *
 * <p>Two observation sets for the pre-RoPE moments (spec §1.2 and §1.4):
 * <ul>
 *   <li>prompt events: every query since {@link #restartMoments()} (CapPress: the whole context minus
 *       the sinks), gathered incrementally;</li>
 *   <li>decoding events: the last ≤ {@code momentWindow} queries (DecodingPress buffer), kept in a
 *       ring of float rows and replayed into the moments by {@link #useRecentQueriesForMoments(int)}.</li>
 * </ul>
 * Called on the forward pass's thread only; not thread-safe.
 */
public final class EvictionObserver implements ForwardObserver {
    private final StatisticsSpec spec;
    private final AttentionShape[] shapes;
    private final QueryStatistics[] stats;
    private final boolean attention;
    private final boolean postRope;
    private final boolean moments;
    private final int window;
    private final float[][] ring; // per layer: window rows of all query heads' pre-RoPE queries
    private final int[][] ringPositions;
    private final long[] ringTotal;
    private boolean incrementalMoments = true;

    /**
     * @param shapes       attention shape of every layer, in layer order
     * @param spec         what the policy needs (its {@link EvictionPolicy#statistics()})
     * @param momentWindow queries remembered for decoding-time moments; 0 to remember none
     */
    public EvictionObserver(List<AttentionShape> shapes, StatisticsSpec spec, int momentWindow) {
        if (shapes.isEmpty()) {
            throw new JacapException("an eviction observer needs at least one layer");
        }
        if (momentWindow < 0) {
            throw new JacapException("moment window must be >= 0, got " + momentWindow);
        }
        this.spec = spec;
        this.shapes = shapes.toArray(AttentionShape[]::new);
        this.stats = new QueryStatistics[this.shapes.length];
        for (int l = 0; l < stats.length; l++) {
            stats[l] = new QueryStatistics(this.shapes[l], spec);
        }
        this.attention = spec.needs(QueryStatistic.ATTENTION_RECEIVED);
        this.postRope = spec.needs(QueryStatistic.RECENT_QUERIES);
        this.moments = spec.needsMoments();
        this.window = spec.needsMoments() ? momentWindow : 0;
        this.ring = new float[window > 0 ? stats.length : 0][];
        this.ringPositions = new int[ring.length][];
        this.ringTotal = new long[ring.length];
        for (int l = 0; l < ring.length; l++) {
            AttentionShape s = this.shapes[l];
            ring[l] = new float[Math.multiplyExact(window, s.queryHeads() * s.headDim())];
            ringPositions[l] = new int[window];
        }
    }

    private EvictionObserver(EvictionObserver src) {
        spec = src.spec;
        shapes = src.shapes;
        stats = new QueryStatistics[src.stats.length];
        for (int l = 0; l < stats.length; l++) {
            stats[l] = src.stats[l].copy();
        }
        attention = src.attention;
        postRope = src.postRope;
        moments = src.moments;
        window = src.window;
        ring = new float[src.ring.length][];
        ringPositions = new int[src.ring.length][];
        for (int l = 0; l < ring.length; l++) {
            ring[l] = src.ring[l].clone();
            ringPositions[l] = src.ringPositions[l].clone();
        }
        ringTotal = src.ringTotal.clone();
        incrementalMoments = src.incrementalMoments;
    }

    /** An independent copy (statistics and query ring), e.g. one per policy after a shared prefill. */
    public EvictionObserver copy() {
        return new EvictionObserver(this);
    }

    public StatisticsSpec spec() {
        return spec;
    }

    public int layers() {
        return stats.length;
    }

    public QueryStatistics statistics(int layer) {
        return stats[layer];
    }

    public int momentWindow() {
        return window;
    }

    // ---- ForwardObserver ----

    @Override
    public void onQuery(int layer, int position, float[] qPre, int preOff, float[] qPost, int postOff) {
        QueryStatistics s = stats[layer];
        int hq = shapes[layer].queryHeads();
        int d = shapes[layer].headDim();
        if (window > 0) {
            long t = ringTotal[layer]++;
            int slot = (int) (t % window);
            System.arraycopy(qPre, preOff, ring[layer], slot * hq * d, hq * d);
            ringPositions[layer][slot] = position;
        }
        if (incrementalMoments && moments) {
            for (int h = 0; h < hq; h++) {
                s.observePreRope(h, position, qPre, preOff + h * d);
            }
        }
        if (postRope) {
            for (int h = 0; h < hq; h++) {
                s.observePostRope(h, position, qPost, postOff + h * d);
            }
        }
    }

    @Override
    public boolean wantsAttention() {
        return attention;
    }

    @Override
    public void onAttention(int layer, int queryHead, int position, float[] probs, int off, int len) {
        stats[layer].observeAttention(queryHead, probs, off, len);
    }

    @Override
    public void onEntriesDropped(int layer, int kvHead, int dropped, int remaining) {
        int[] kept = new int[remaining];
        for (int j = 0; j < remaining; j++) {
            kept[j] = dropped + j;
        }
        stats[layer].retainEntries(kvHead, kept);
    }

    // ---- observation sets ----

    /** A new prompt starts a new observation set: the moments of every layer restart from zero. */
    public void restartMoments() {
        for (QueryStatistics s : stats) {
            s.resetMoments();
        }
    }

    /**
     * Whether {@link #onQuery} updates the moments as queries arrive (prompt evaluation). While
     * decoding with a moment window this is off: each decoding event replays the window instead.
     */
    public void gatherMomentsIncrementally(boolean on) {
        this.incrementalMoments = on;
    }

    /**
     * Replaces the moments of {@code layer} by those of its last ≤ {@link #momentWindow()} queries
     * (DecodingPress's observation set). A no-op when the policy needs no moments.
     */
    public void useRecentQueriesForMoments(int layer) {
        if (window == 0) {
            return;
        }
        QueryStatistics s = stats[layer];
        int hq = shapes[layer].queryHeads();
        int d = shapes[layer].headDim();
        int held = recentQueriesHeld(layer);
        // the ring's first `held` slots are the window (its order does not matter to moments)
        for (int h = 0; h < hq; h++) {
            s.replaceMoments(h, ring[layer], h * d, hq * d, ringPositions[layer], held);
        }
    }

    /** Queries held in the moment window of {@code layer}: min(window, observed). */
    public int recentQueriesHeld(int layer) {
        return window == 0 ? 0 : (int) Math.min(ringTotal[layer], window);
    }

    /** Forgets everything (a new conversation): moments, recent queries, attention, the ring. */
    public void clear() {
        for (int l = 0; l < stats.length; l++) {
            stats[l] = new QueryStatistics(shapes[l], spec);
        }
        java.util.Arrays.fill(ringTotal, 0);
        incrementalMoments = true;
    }
}

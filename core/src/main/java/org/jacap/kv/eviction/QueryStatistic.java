package org.jacap.kv.eviction;

/** A statistic of the queries that the forward pass gathers for a policy. */
public enum QueryStatistic {
    /** Running mean of pre-RoPE queries per query head (CapKV, Jacap, ExpectedAttention). */
    PRE_ROPE_MEAN,
    /** Per-dimension population variance of pre-RoPE queries (Jacap). */
    PRE_ROPE_VARIANCE,
    /** Full population covariance of pre-RoPE queries (ExpectedAttention). */
    PRE_ROPE_COVARIANCE,
    /** The last w post-RoPE queries with their positions (SnapKV window, TOVA last query). */
    RECENT_QUERIES,
    /** Attention each cache entry received, summed over queries, and how many queries saw it (H2O). */
    ATTENTION_RECEIVED
}

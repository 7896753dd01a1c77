package org.jacap.kv.eviction;

/**
 * What one compression of a whole cache did.
 *
 * @param entriesBefore  cache entries over all layers and KV heads before
 * @param entriesKept    entries after
 * @param bytesInUse     {@code KvCache.bytesInUse()} after (keys, values, positions)
 * @param bytesAllocated {@code KvCache.bytesAllocated()} after
 * @param scoringNanos   time in eviction (snapshot copy, scoring, compaction)
 * @param totalNanos     wall time of the call
 */
public record CompressionResult(
        long entriesBefore,
        long entriesKept,
        long bytesInUse,
        long bytesAllocated,
        long scoringNanos,
        long totalNanos) {

    public long entriesEvicted() {
        return entriesBefore - entriesKept;
    }
}

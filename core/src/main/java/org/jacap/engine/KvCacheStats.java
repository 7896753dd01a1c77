package org.jacap.engine;

/**
 * A session's KV cache and what eviction did to it so far.
 *
 * @param policy              the eviction policy with its parameters ({@code none} without one)
 * @param entries             entries held now, over all layers and KV heads
 * @param peakHeadLength      the most entries one KV head held at once
 * @param bytesInUse          bytes of the entries held (keys, values, positions)
 * @param bytesAllocated      bytes allocated for the cache
 * @param promptEvictionNanos time in eviction while evaluating prompts (chunk events, compression)
 * @param decodeEvictionNanos time in eviction while generating
 * @param promptEvents        eviction events during prompts
 * @param decodeEvents        eviction events during generation
 * @param entriesEvicted      entries removed so far
 */
public record KvCacheStats(
        String policy,
        long entries,
        int peakHeadLength,
        long bytesInUse,
        long bytesAllocated,
        long promptEvictionNanos,
        long decodeEvictionNanos,
        long promptEvents,
        long decodeEvents,
        long entriesEvicted) {

    public long evictionNanos() {
        return promptEvictionNanos + decodeEvictionNanos;
    }
}

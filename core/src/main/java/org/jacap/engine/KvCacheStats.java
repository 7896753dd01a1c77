package org.jacap.engine;

/**
 * A session's KV cache and what eviction did to it so far.
 *
 * @param policy              the eviction policy with its parameters ({@code none} without one)
 * @param storage             how keys and values are stored ({@code f16}, {@code k=q8_0 v=f16}, ...)
 * @param entries             entries held now, over all layers and KV heads
 * @param peakHeadLength      the most entries one KV head held at once
 * @param bytesInUse          bytes of the entries held (keys and values in their storage types, positions)
 * @param bytesAllocated      bytes allocated for the cache
 * @param promptEvictionNanos time in eviction while evaluating prompts (chunk events, compression)
 * @param decodeEvictionNanos time in eviction while generating
 * @param promptEvents        eviction events during prompts
 * @param decodeEvents        eviction events during generation
 * @param entriesEvicted      entries removed so far
 */
public record KvCacheStats(
        String policy,
        String storage,
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

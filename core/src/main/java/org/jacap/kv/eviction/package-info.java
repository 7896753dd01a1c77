/**
 * KV-cache eviction: scorers (which cache entries matter), budget allocators (how many each
 * KV head keeps) and the query statistics the forward pass gathers for them.
 *
 * <p>The flow per layer and eviction event: the forward pass feeds a {@link
 * org.jacap.kv.eviction.QueryStatistics}; the engine copies the cache rows of the layer into a
 * {@link org.jacap.kv.eviction.LayerSnapshot}; an {@link org.jacap.kv.eviction.EvictionPolicy}
 * scores and selects, returning {@link org.jacap.kv.eviction.KeptEntries} (entry indices per KV
 * head, ascending) that the cache compacts to. The mathematics is in {@code docs/eviction-spec.md}.
 */
package org.jacap.kv.eviction;

package org.jacap.kv.eviction;

/**
 * Turns a layer's scores and a budget into kept entries: how many each KV head keeps, and which.
 * Within a head the kept entries are always the top of its rank order (score descending, ties
 * toward the lower index), so protected-entry priority holds under every allocator.
 */
public sealed interface BudgetAllocator permits UniformAllocator, PyramidKvAllocator, AdaKvAllocator {

    /** Registry name, e.g. {@code "uniform"}. */
    String name();

    /** The spec string that {@link EvictionPolicies#allocator(String)} parses back. */
    String spec();

    /** Kept entry indices per KV head, ascending. */
    int[][] select(double[][] scores, Budget budget, int layer, int layerCount);
}

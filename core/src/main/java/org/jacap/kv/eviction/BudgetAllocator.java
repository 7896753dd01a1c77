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

    /**
     * The most entries one KV head can keep after a selection when the per-head budget is
     * {@code perHead} and the layer has {@code kvHeads} heads: sizes a cache that never outgrows
     * its budget.
     */
    int maxKeptPerHead(int perHead, int kvHeads);

    /** Kept entry indices per KV head, ascending. */
    int[][] select(double[][] scores, Budget budget, int layer, int layerCount);
}

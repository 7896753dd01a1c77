package org.jacap.kv.eviction;

import org.jacap.kv.eviction.math.TopK;

/** Every (layer, KV head) keeps {@code budget.keptCount(n)} entries, chosen per head. */
public record UniformAllocator() implements BudgetAllocator {
    @Override
    public String name() {
        return "uniform";
    }

    @Override
    public String spec() {
        return name();
    }

    @Override
    public int maxKeptPerHead(int perHead, int kvHeads) {
        return perHead;
    }

    @Override
    public int[][] select(double[][] scores, Budget budget, int layer, int layerCount) {
        int[][] kept = new int[scores.length][];
        for (int g = 0; g < scores.length; g++) {
            kept[g] = TopK.top(scores[g], budget.keptCount(scores[g].length));
        }
        return kept;
    }
}

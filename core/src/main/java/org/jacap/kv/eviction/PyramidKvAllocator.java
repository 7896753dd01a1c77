package org.jacap.kv.eviction;

import org.jacap.JacapException;
import org.jacap.kv.eviction.math.TopK;

/**
 * PyramidKV (kvpress PyramidKVPress.get_layer_budget): per-layer budgets falling linearly from
 * {@code max} at layer 0 to {@code min} at the last layer, with the same mean as the uniform
 * budget; falls back to the uniform target when the pyramid does not fit. Then per-head top-k.
 */
public record PyramidKvAllocator(int windowSize, double beta) implements BudgetAllocator {
    public static final int DEFAULT_WINDOW = 64;
    public static final double DEFAULT_BETA = 20;

    public PyramidKvAllocator {
        if (windowSize < 0 || !(beta > 0)) {
            throw new JacapException("pyramid: needs window >= 0 and beta > 0");
        }
    }

    /** One layer's count and which branch produced it. */
    public record LayerBudget(int count, boolean fallback, boolean clipped, double min, double max) {}

    @Override
    public String name() {
        return "pyramid";
    }

    @Override
    public String spec() {
        return name() + ":window_size=" + windowSize + ",beta=" + beta;
    }

    /**
     * The kvpress computation, in double and in this order; rounding is half-to-even
     * ({@code Math.rint}, as Python's round). A single-layer model takes the fallback.
     */
    public static LayerBudget layerBudget(
            int n, double target, int windowSize, double beta, int layerCount, int layer) {
        double w = windowSize;
        double mcp = w + target;
        double min = (mcp - w) / beta;
        double max = (mcp - w) * 2 - min;
        boolean clipped = false;
        if (max >= n - w) {
            max = n - w;
            min = (mcp - w) * 2 - max;
            clipped = true;
        }
        boolean fallback = !(n >= max && max >= min && min >= w) || layerCount < 2;
        double budget = fallback ? Math.rint(target) : Math.rint(max - layer * ((max - min) / (layerCount - 1)));
        int count = (int) Math.max(0, Math.min(n, budget));
        return new LayerBudget(count, fallback, clipped, min, max);
    }

    public LayerBudget layerBudget(int n, Budget budget, int layerCount, int layer) {
        return layerBudget(n, budget.target(n), windowSize, beta, layerCount, layer);
    }

    /** Layer 0 gets {@code max = 2·target − min ≤ 2·target}, the largest of the pyramid. */
    @Override
    public int maxKeptPerHead(int perHead, int kvHeads) {
        return (int) Math.min(Integer.MAX_VALUE / 2, 2L * perHead);
    }

    @Override
    public int[][] select(double[][] scores, Budget budget, int layer, int layerCount) {
        int[][] kept = new int[scores.length][];
        for (int g = 0; g < scores.length; g++) {
            int n = scores[g].length;
            kept[g] = TopK.top(
                    scores[g], layerBudget(n, budget, layerCount, layer).count());
        }
        return kept;
    }
}

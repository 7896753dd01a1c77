package org.jacap.kv.eviction;

import java.util.Arrays;
import org.jacap.JacapException;
import org.jacap.kv.eviction.math.TopK;

/**
 * AdaKV (kvpress AdaKVPress): the layer's total budget {@code Σ_g n_kept} is spent jointly across
 * KV heads on the best (head, entry) pairs, ranked by (score desc, head asc, entry asc), after
 * each head's top {@code (int)(n_kept·alphaSafeguard)} entries are guaranteed.
 */
public record AdaKvAllocator(double alphaSafeguard) implements BudgetAllocator {
    public static final double DEFAULT_ALPHA = 0.2;

    public AdaKvAllocator {
        if (!(alphaSafeguard >= 0 && alphaSafeguard <= 1)) {
            throw new JacapException("ada: alpha must be in [0, 1], got " + alphaSafeguard);
        }
    }

    @Override
    public String name() {
        return "ada";
    }

    @Override
    public String spec() {
        return name() + ":alpha=" + alphaSafeguard;
    }

    /** Entries guaranteed to each head: {@code (int)(nKept * alpha)}. */
    public int safeCount(int nKept) {
        return (int) (nKept * alphaSafeguard);
    }

    /** In the extreme one head wins the whole layer's budget. */
    @Override
    public int maxKeptPerHead(int perHead, int kvHeads) {
        return (int) Math.min(Integer.MAX_VALUE / 2, (long) kvHeads * perHead);
    }

    @Override
    public int[][] select(double[][] scores, Budget budget, int layer, int layerCount) {
        int heads = scores.length;
        int[] offset = new int[heads + 1];
        for (int g = 0; g < heads; g++) {
            offset[g + 1] = offset[g] + scores[g].length;
        }
        double[] flat = new double[offset[heads]];
        int total = 0;
        for (int g = 0; g < heads; g++) {
            int n = scores[g].length;
            int nKept = budget.keptCount(n);
            total += nKept;
            System.arraycopy(scores[g], 0, flat, offset[g], n);
            int[] order = TopK.rankOrder(scores[g], n);
            for (int r = 0; r < Math.min(safeCount(nKept), n); r++) {
                flat[offset[g] + order[r]] = Double.MAX_VALUE;
            }
        }
        int[] order = TopK.rankOrder(flat, flat.length); // ties: flat index asc = head asc, entry asc
        int[] counts = new int[heads];
        int[] headOf = new int[flat.length];
        for (int g = 0; g < heads; g++) {
            Arrays.fill(headOf, offset[g], offset[g + 1], g);
        }
        for (int r = 0; r < total; r++) {
            counts[headOf[order[r]]]++;
        }
        int[][] kept = new int[heads][];
        for (int g = 0; g < heads; g++) {
            kept[g] = new int[counts[g]];
        }
        int[] fill = new int[heads];
        for (int r = 0; r < total; r++) {
            int g = headOf[order[r]];
            kept[g][fill[g]++] = order[r] - offset[g];
        }
        for (int[] k : kept) {
            Arrays.sort(k);
        }
        return kept;
    }
}

package org.jacap.bench.eval;

import java.util.Arrays;

/**
 * Chooses which entries of one (layer, KV head) survive, with the conventions of the eviction
 * fixtures: protected tokens first (sinks by lowest position, then recent tokens by newest
 * position), then the highest scores, ties toward the lower position. Returns entry indices
 * in ascending order, as {@code KvCache.retain} expects.
 */
public final class KeepSelection {
    private KeepSelection() {
    }

    /**
     * @param scores        one score per entry (higher is kept first)
     * @param positions     the stored position of each entry
     * @param length        entries in the head
     * @param keep          budget, protected tokens included
     * @param contextLength positions 0..contextLength−1 form the context whose tail is "recent"
     */
    public static int[] select(double[] scores, int[] positions, int length, int keep, Protection protection,
                               int contextLength) {
        int budget = Math.min(Math.max(keep, 0), length);
        Integer[] order = new Integer[length];
        for (int i = 0; i < length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int ra = rank(positions[a], protection, contextLength);
            int rb = rank(positions[b], protection, contextLength);
            if (ra != rb) {
                return Integer.compare(ra, rb);
            }
            return switch (ra) {
                case 0 -> Integer.compare(positions[a], positions[b]);
                case 1 -> Integer.compare(positions[b], positions[a]);
                default -> {
                    int c = Double.compare(scores[b], scores[a]);
                    yield c != 0 ? c : Integer.compare(positions[a], positions[b]);
                }
            };
        });
        int[] kept = new int[budget];
        for (int i = 0; i < budget; i++) {
            kept[i] = order[i];
        }
        Arrays.sort(kept);
        return kept;
    }

    /** 0 = sink, 1 = recent, 2 = scored. */
    private static int rank(int position, Protection protection, int contextLength) {
        if (position < protection.sinks()) {
            return 0;
        }
        if (position >= contextLength - protection.recent()) {
            return 1;
        }
        return 2;
    }

    /** Kept count per (layer, KV head) for a compression ratio (fraction removed), truncated in double. */
    public static int keptForRatio(int contextLength, double ratio) {
        if (!(ratio >= 0 && ratio < 1)) {
            throw new IllegalArgumentException("compression ratio must be in [0, 1), got " + ratio);
        }
        return (int) (contextLength * (1.0 - ratio));
    }
}

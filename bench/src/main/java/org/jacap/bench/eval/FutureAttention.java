package org.jacap.bench.eval;

/**
 * Attention mass each context position receives from the continuation's queries in the full run,
 * per (layer, KV head), summed over the query heads of the group: the future-attention oracle's
 * scores (eviction-spec §6, honesty rule 4).
 */
public final class FutureAttention {
    private final int layers;
    private final int kvHeads;
    private final int groupSize;
    private final int contextLength;
    private final double[] mass;

    public FutureAttention(int layers, int kvHeads, int groupSize, int contextLength) {
        this.layers = layers;
        this.kvHeads = kvHeads;
        this.groupSize = groupSize;
        this.contextLength = contextLength;
        this.mass = new double[layers * kvHeads * contextLength];
    }

    public int contextLength() {
        return contextLength;
    }

    /**
     * Adds one query head's attention probabilities over the cache entries of its KV head; entries
     * whose stored position lies outside the context (the continuation itself) are ignored.
     */
    public void add(int layer, int queryHead, int[] entryPositions, float[] probs, int off, int len) {
        int base = (layer * kvHeads + queryHead / groupSize) * contextLength;
        for (int i = 0; i < len; i++) {
            int p = entryPositions[i];
            if (p >= 0 && p < contextLength) {
                mass[base + p] += probs[off + i];
            }
        }
    }

    /** Mass received by the entries of one head, in the order of {@code entryPositions}. */
    public double[] scores(int layer, int kvHead, int[] entryPositions, int length) {
        if (layer < 0 || layer >= layers || kvHead < 0 || kvHead >= kvHeads) {
            throw new IndexOutOfBoundsException("layer " + layer + ", KV head " + kvHead);
        }
        int base = (layer * kvHeads + kvHead) * contextLength;
        double[] s = new double[length];
        for (int i = 0; i < length; i++) {
            int p = entryPositions[i];
            s[i] = p >= 0 && p < contextLength ? mass[base + p] : 0;
        }
        return s;
    }
}

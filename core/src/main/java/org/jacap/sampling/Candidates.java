package org.jacap.sampling;

import java.util.Arrays;

/**
 * The tokens still in the running for one sampling step, with their logits (llama.cpp's
 * {@code llama_token_data_array}). Stages shrink and reorder it; all buffers are sized for the
 * vocabulary once, so a step allocates nothing.
 *
 * <p>Order invariant: the first {@code sortedPrefix} entries are the top candidates overall in
 * descending logit order, ties broken toward the lower id.
 */
public final class Candidates {
    private final int[] ids;
    private final float[] logits;
    private final float[] probs;
    private final long[] keys;
    private final int[] marks; // per token id: == epoch when the id is in the current mark set
    private int epoch;
    private int size;
    private int sortedPrefix;
    private boolean identity; // ids[i] == i for every i (fresh from the model's logits)

    public Candidates(int vocabSize) {
        if (vocabSize <= 0) {
            throw new IllegalArgumentException("vocabulary size must be > 0, got " + vocabSize);
        }
        ids = new int[vocabSize];
        logits = new float[vocabSize];
        probs = new float[vocabSize];
        keys = new long[vocabSize];
        marks = new int[vocabSize];
    }

    /** Starts a step from the model's logits: every token, in id order. */
    public void reset(float[] source, int offset) {
        int n = ids.length;
        if (offset < 0 || source.length - offset < n) {
            throw new IllegalArgumentException(
                    "logits hold " + (source.length - offset) + " values after offset " + offset + ", need " + n);
        }
        System.arraycopy(source, offset, logits, 0, n);
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        size = n;
        sortedPrefix = 0;
        identity = true;
    }

    public int capacity() {
        return ids.length;
    }

    public int size() {
        return size;
    }

    public int id(int i) {
        return ids[i];
    }

    public float logit(int i) {
        return logits[i];
    }

    /** True when the candidates are in descending logit order (ties → lower id first). */
    public boolean isSorted() {
        return sortedPrefix >= size;
    }

    /** The ids still in the running, in their current order (allocates; for tests and tools). */
    public int[] ids() {
        return Arrays.copyOf(ids, size);
    }

    boolean isIdentity() {
        return identity;
    }

    void setLogit(int i, float value) {
        logits[i] = value;
    }

    /** Call after changing logits in a way that may reorder them. */
    void invalidateOrder() {
        sortedPrefix = 0;
    }

    /** Highest logit among the candidates. */
    float maxLogit() {
        if (sortedPrefix > 0) {
            return logits[0];
        }
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < size; i++) {
            max = Math.max(max, logits[i]);
        }
        return max;
    }

    /** Makes the first min(k, size) entries the top ones in sorted order. */
    void sortTop(int k) {
        k = Math.min(k, size);
        if (sortedPrefix >= k) {
            return;
        }
        for (int i = 0; i < size; i++) {
            keys[i] = RankKeys.key(logits[i], ids[i]);
        }
        RankKeys.select(keys, 0, size, k);
        RankKeys.sort(keys, 0, k);
        for (int i = 0; i < size; i++) {
            ids[i] = RankKeys.id(keys[i]);
            logits[i] = RankKeys.logit(keys[i]);
        }
        sortedPrefix = k;
        identity = false;
    }

    /** Keeps the first n entries; callers ensure those are the ones meant to survive. */
    void truncate(int n) {
        if (n < size) {
            size = Math.max(1, n);
            sortedPrefix = Math.min(sortedPrefix, size);
            identity = identity && size == ids.length;
        }
    }

    /** Keeps, in order, the candidates whose logit is at least {@code threshold}. */
    void retainAtLeast(float threshold) {
        int kept = 0;
        int keptOfPrefix = 0;
        for (int i = 0; i < size; i++) {
            if (logits[i] >= threshold) {
                if (i < sortedPrefix) {
                    keptOfPrefix++;
                }
                ids[kept] = ids[i];
                logits[kept] = logits[i];
                kept++;
            }
        }
        if (kept == 0) { // only possible with NaN logits: keep the first as llama.cpp's min_keep does
            kept = 1;
        }
        identity = identity && kept == size;
        // a dropped prefix entry means everything ranked below it was dropped too
        sortedPrefix = keptOfPrefix;
        size = kept;
    }

    /** Fills the probabilities of entries [0, size) with the softmax of their logits; see {@link #prob}. */
    void softmax() {
        float max = maxLogit();
        double sum = 0;
        for (int i = 0; i < size; i++) {
            float e = (float) Math.exp(logits[i] - max);
            probs[i] = e;
            sum += e;
        }
        float inv = (float) (1.0 / sum);
        for (int i = 0; i < size; i++) {
            probs[i] *= inv;
        }
    }

    /** Probability of entry i as of the last {@link #softmax()}. */
    public float prob(int i) {
        return probs[i];
    }

    /** Starts a new mark set (a set of token ids) and returns its stamp. */
    int newMarks() {
        if (++epoch == Integer.MAX_VALUE) {
            Arrays.fill(marks, 0);
            epoch = 1;
        }
        return epoch;
    }

    /** Marks the token id; returns false if it was already marked in this set or is out of range. */
    boolean mark(int tokenId) {
        if (tokenId < 0 || tokenId >= marks.length || marks[tokenId] == epoch) {
            return false;
        }
        marks[tokenId] = epoch;
        return true;
    }

    boolean isMarked(int tokenId) {
        return marks[tokenId] == epoch;
    }

    /** Index of the entry for a token id, assuming identity order; -1 if out of range. */
    int indexOfIdentity(int tokenId) {
        return tokenId >= 0 && tokenId < size ? tokenId : -1;
    }
}

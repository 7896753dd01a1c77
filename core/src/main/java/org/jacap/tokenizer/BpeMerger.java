package org.jacap.tokenizer;

import java.util.Arrays;

/**
 * Byte-pair merging of one word (llama.cpp's {@code llm_tokenizer_bpe_session}): symbols start as
 * the word's byte tokens in a linked list; a min-heap of candidate pairs, keyed by
 * {@code rank << 32 | leftIndex}, always yields the lowest-rank pair, leftmost on ties. Stale
 * candidates are recognised by their token ids, so nothing is rescanned: O(n log n) per word.
 * Holds scratch arrays: one instance per encoding call, not shared between threads.
 */
final class BpeMerger {
    private static final int DEAD = -2;

    private final MergeTable merges;
    private int[] ids = new int[64];
    private int[] prev = new int[64];
    private int[] next = new int[64];
    private long[] heap = new long[128];
    private int heapSize;

    BpeMerger(MergeTable merges) {
        this.merges = merges;
    }

    /**
     * Merges the symbols {@code symbols[0, n)} (token ids; -1 for a byte with no token) and appends
     * the resulting ids to {@code out}. Symbols without a token are dropped, as llama.cpp drops them.
     */
    void merge(int[] symbols, int n, IntList out) {
        if (ids.length < n) {
            int cap = Math.max(n, ids.length * 2);
            ids = new int[cap];
            prev = new int[cap];
            next = new int[cap];
        }
        System.arraycopy(symbols, 0, ids, 0, n);
        for (int i = 0; i < n; i++) {
            prev[i] = i - 1;
            next[i] = i + 1 < n ? i + 1 : -1;
        }
        heapSize = 0;
        for (int i = 0; i + 1 < n; i++) {
            offer(i, i + 1);
        }
        while (heapSize > 0) {
            long top = poll();
            int rank = (int) (top >>> 32);
            int left = (int) top;
            if (ids[left] != merges.left(rank)) {
                continue; // the left symbol was merged (or absorbed) since this pair was queued
            }
            int right = next[left];
            if (right < 0 || ids[right] != merges.right(rank)) {
                continue;
            }
            ids[left] = merges.result(rank);
            ids[right] = DEAD;
            int after = next[right];
            next[left] = after;
            if (after >= 0) {
                prev[after] = left;
            }
            if (prev[left] >= 0) {
                offer(prev[left], left);
            }
            if (after >= 0) {
                offer(left, after);
            }
        }
        for (int i = 0; i >= 0 && n > 0; i = next[i]) {
            if (ids[i] >= 0) {
                out.add(ids[i]);
            }
        }
    }

    private void offer(int left, int right) {
        int rank = merges.rank(ids[left], ids[right]);
        if (rank < 0) {
            return;
        }
        if (heapSize == heap.length) {
            heap = Arrays.copyOf(heap, heap.length * 2);
        }
        long key = ((long) rank << 32) | left;
        int i = heapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] <= key) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = key;
    }

    private long poll() {
        long top = heap[0];
        long last = heap[--heapSize];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= heapSize) {
                break;
            }
            if (child + 1 < heapSize && heap[child + 1] < heap[child]) {
                child++;
            }
            if (heap[child] >= last) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = last;
        return top;
    }
}

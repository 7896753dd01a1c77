package org.jacap.sampling;

/**
 * Packs (logit, id) into one {@code long} whose natural order is "higher logit first, then lower
 * id", so candidates can be selected and sorted on a primitive array without boxing or comparators.
 * Holds the allocation-free selection and sort on such keys.
 */
final class RankKeys {
    private static final int INSERTION_LIMIT = 24;

    private RankKeys() {}

    static long key(float logit, int id) {
        int bits = Float.floatToIntBits(logit);
        int ordered = bits ^ ((bits >> 31) & 0x7fffffff); // signed-int order == float order
        return ((long) ~ordered << 32) | (id & 0xffffffffL); // ~ turns it into descending order
    }

    static int id(long key) {
        return (int) key;
    }

    static float logit(long key) {
        int ordered = ~(int) (key >>> 32);
        return Float.intBitsToFloat(ordered ^ ((ordered >> 31) & 0x7fffffff));
    }

    /** Rearranges a[from, to) so that a[from, from+k) holds its k smallest keys (in any order). */
    static void select(long[] a, int from, int to, int k) {
        int target = from + k;
        if (k <= 0 || target >= to) {
            return;
        }
        int lo = from;
        int hi = to - 1;
        int budget = 2 * (32 - Integer.numberOfLeadingZeros(to - from)) + 8;
        while (hi - lo > INSERTION_LIMIT) {
            if (budget-- == 0) { // pathological pivots: fall back to a guaranteed O(n log n) sort
                sort(a, lo, hi + 1);
                return;
            }
            int p = partition(a, lo, hi);
            if (p == target) {
                return;
            }
            if (p < target) {
                lo = p + 1;
            } else {
                hi = p - 1;
            }
        }
        insertionSort(a, lo, hi + 1);
    }

    /** Sorts a[from, to) ascending: introsort (quicksort, heapsort when the recursion goes deep). */
    static void sort(long[] a, int from, int to) {
        introSort(a, from, to - 1, 2 * (32 - Integer.numberOfLeadingZeros(Math.max(1, to - from))));
    }

    private static void introSort(long[] a, int lo, int hi, int depth) {
        while (hi - lo > INSERTION_LIMIT) {
            if (depth-- == 0) {
                heapSort(a, lo, hi + 1);
                return;
            }
            int p = partition(a, lo, hi);
            // recurse into the smaller side, loop on the larger: stack depth stays O(log n)
            if (p - lo < hi - p) {
                introSort(a, lo, p - 1, depth);
                lo = p + 1;
            } else {
                introSort(a, p + 1, hi, depth);
                hi = p - 1;
            }
        }
        insertionSort(a, lo, hi + 1);
    }

    /** Lomuto partition around the median of three; returns the pivot's final index. */
    private static int partition(long[] a, int lo, int hi) {
        int mid = (lo + hi) >>> 1;
        if (a[mid] < a[lo]) {
            swap(a, mid, lo);
        }
        if (a[hi] < a[lo]) {
            swap(a, hi, lo);
        }
        if (a[hi] < a[mid]) {
            swap(a, hi, mid);
        }
        swap(a, mid, hi); // pivot (the median) to the end
        long pivot = a[hi];
        int store = lo;
        for (int i = lo; i < hi; i++) {
            if (a[i] < pivot) {
                swap(a, i, store++);
            }
        }
        swap(a, store, hi);
        return store;
    }

    private static void insertionSort(long[] a, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            long v = a[i];
            int j = i - 1;
            while (j >= from && a[j] > v) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
    }

    private static void heapSort(long[] a, int from, int to) {
        int n = to - from;
        for (int i = n / 2 - 1; i >= 0; i--) {
            siftDown(a, from, i, n);
        }
        for (int end = n - 1; end > 0; end--) {
            swap(a, from, from + end);
            siftDown(a, from, 0, end);
        }
    }

    private static void siftDown(long[] a, int base, int i, int n) {
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                return;
            }
            if (child + 1 < n && a[base + child + 1] > a[base + child]) {
                child++;
            }
            if (a[base + i] >= a[base + child]) {
                return;
            }
            swap(a, base + i, base + child);
            i = child;
        }
    }

    private static void swap(long[] a, int i, int j) {
        long t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

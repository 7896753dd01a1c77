package org.jacap.kv.eviction;

/**
 * The result of an eviction: per KV head, the indices (into that head's current entries, not
 * positions) of the entries to keep, strictly ascending.
 */
public record KeptEntries(int[][] perHead) {

    public int[] kept(int kvHead) {
        return perHead[kvHead];
    }

    public int count(int kvHead) {
        return perHead[kvHead].length;
    }

    /**
     * Compacts row-major rows of {@code rowLength} values in place to the kept entries, in order.
     * Safe in place because the kept indices ascend. Returns the new entry count.
     */
    public static int compactRows(float[] rows, int rowLength, int[] keptAscending) {
        for (int j = 0; j < keptAscending.length; j++) {
            int i = keptAscending[j];
            if (i != j) {
                System.arraycopy(rows, i * rowLength, rows, j * rowLength, rowLength);
            }
        }
        return keptAscending.length;
    }

    /** Compacts positions (or any per-entry int) in place; returns the new entry count. */
    public static int compact(int[] perEntry, int[] keptAscending) {
        for (int j = 0; j < keptAscending.length; j++) {
            perEntry[j] = perEntry[keptAscending[j]];
        }
        return keptAscending.length;
    }
}

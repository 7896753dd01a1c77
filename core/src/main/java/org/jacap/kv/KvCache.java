package org.jacap.kv;

import java.util.Arrays;

/**
 * Post-RoPE keys, values and original positions, per (layer, KV head). Every head keeps its own
 * entries and length, so an eviction policy may keep different tokens in different heads. Rows
 * are appended in position order and {@link #retain} keeps their order, so positions within a
 * head are ascending. Kept keys are never re-rotated: a token keeps the RoPE angle of the
 * position it was computed at, and new tokens continue at their true positions.
 *
 * <p>Storage is float32 (as llama.cpp's reference runs with an F32 K/V cache). Each head's
 * arrays grow geometrically when an append needs room, up to {@link #maxCapacity()} (if set).
 * The arrays returned by {@link #keys}, {@link #values} and {@link #positions} are the live
 * storage: only the first {@link #length} rows are valid, and an append may replace them.
 */
public final class KvCache {
    private final int layers;
    private final int kvHeads;
    private final int keyDim;
    private final int valueDim;
    private final int maxCapacity;
    private final float[][] keys;
    private final float[][] values;
    private final int[][] positions;
    private final int[] lengths;

    /** A cache without an upper bound on its capacity (it grows as long as appends need). */
    public KvCache(int layers, int kvHeads, int keyDim, int valueDim, int initialCapacity) {
        this(layers, kvHeads, keyDim, valueDim, initialCapacity, Integer.MAX_VALUE);
    }

    /**
     * A cache whose heads start with room for {@code initialCapacity} rows and grow (doubling)
     * up to {@code maxCapacity} rows; an append beyond {@code maxCapacity} fails.
     */
    public KvCache(int layers, int kvHeads, int keyDim, int valueDim, int initialCapacity, int maxCapacity) {
        if (layers < 1 || kvHeads < 1 || keyDim < 1 || valueDim < 1) {
            throw new IllegalArgumentException("layers, kvHeads, keyDim and valueDim must be >= 1, got " + layers + ", "
                    + kvHeads + ", " + keyDim + ", " + valueDim);
        }
        if (initialCapacity < 0 || maxCapacity < 1 || initialCapacity > maxCapacity) {
            throw new IllegalArgumentException("need 0 <= initialCapacity <= maxCapacity and maxCapacity >= 1, got "
                    + initialCapacity + ", " + maxCapacity);
        }
        this.layers = layers;
        this.kvHeads = kvHeads;
        this.keyDim = keyDim;
        this.valueDim = valueDim;
        this.maxCapacity = maxCapacity;
        int n = layers * kvHeads;
        this.keys = new float[n][];
        this.values = new float[n][];
        this.positions = new int[n][];
        this.lengths = new int[n];
        for (int i = 0; i < n; i++) {
            keys[i] = new float[Math.multiplyExact(initialCapacity, keyDim)];
            values[i] = new float[Math.multiplyExact(initialCapacity, valueDim)];
            positions[i] = new int[initialCapacity];
        }
    }

    private KvCache(KvCache src) {
        this.layers = src.layers;
        this.kvHeads = src.kvHeads;
        this.keyDim = src.keyDim;
        this.valueDim = src.valueDim;
        this.maxCapacity = src.maxCapacity;
        int n = layers * kvHeads;
        this.keys = new float[n][];
        this.values = new float[n][];
        this.positions = new int[n][];
        this.lengths = src.lengths.clone();
        for (int i = 0; i < n; i++) {
            // The copy gets exactly the source's capacity so that it behaves identically.
            keys[i] = src.keys[i].clone();
            values[i] = src.values[i].clone();
            positions[i] = src.positions[i].clone();
        }
    }

    public int layers() {
        return layers;
    }

    public int kvHeads() {
        return kvHeads;
    }

    public int keyDim() {
        return keyDim;
    }

    public int valueDim() {
        return valueDim;
    }

    /** The most rows one head may hold ({@link Integer#MAX_VALUE} when unbounded). */
    public int maxCapacity() {
        return maxCapacity;
    }

    private int slot(int layer, int head) {
        if (layer < 0 || layer >= layers || head < 0 || head >= kvHeads) {
            throw new IndexOutOfBoundsException("(layer " + layer + ", KV head " + head + ") outside " + layers
                    + " layers x " + kvHeads + " KV heads");
        }
        return layer * kvHeads + head;
    }

    /** Number of valid rows of this head. */
    public int length(int layer, int head) {
        return lengths[slot(layer, head)];
    }

    /** Rows this head can hold before it grows. */
    public int capacity(int layer, int head) {
        return positions[slot(layer, head)].length;
    }

    /** The longest head over all layers and heads. */
    public int maxLength() {
        int m = 0;
        for (int len : lengths) {
            m = Math.max(m, len);
        }
        return m;
    }

    /** Live key storage {@code [capacity * keyDim]}: row i at {@code i * keyDim}, first length rows valid. */
    public float[] keys(int layer, int head) {
        return keys[slot(layer, head)];
    }

    /** Live value storage {@code [capacity * valueDim]}, first length rows valid. */
    public float[] values(int layer, int head) {
        return values[slot(layer, head)];
    }

    /** Live position storage {@code [capacity]}: the original position of each row, ascending. */
    public int[] positions(int layer, int head) {
        return positions[slot(layer, head)];
    }

    /** Makes room for {@code rows} more rows in this head (growing geometrically), without appending. */
    public void reserve(int layer, int head, int rows) {
        int s = slot(layer, head);
        ensureRoom(s, (long) lengths[s] + rows);
    }

    private void ensureRoom(int s, long needed) {
        int cap = positions[s].length;
        if (needed <= cap) {
            return;
        }
        if (needed > maxCapacity) {
            throw new IllegalStateException("KV cache head (layer " + s / kvHeads + ", KV head " + s % kvHeads
                    + ") would need " + needed + " rows, more than its maximum capacity of " + maxCapacity);
        }
        long grown = Math.max(needed, Math.max(16L, 2L * cap));
        int newCap = (int) Math.min(grown, maxCapacity);
        keys[s] = Arrays.copyOf(keys[s], Math.multiplyExact(newCap, keyDim));
        values[s] = Arrays.copyOf(values[s], Math.multiplyExact(newCap, valueDim));
        positions[s] = Arrays.copyOf(positions[s], newCap);
    }

    /**
     * Appends one row: {@code keyDim} floats of {@code k} from {@code kOff}, {@code valueDim} floats
     * of {@code v} from {@code vOff}, at original position {@code position}.
     */
    public void append(int layer, int head, int position, float[] k, int kOff, float[] v, int vOff) {
        int s = slot(layer, head);
        int len = lengths[s];
        if (len > 0 && positions[s][len - 1] >= position) {
            throw new IllegalArgumentException("position " + position + " is not after the last stored position "
                    + positions[s][len - 1] + " (layer " + layer + ", KV head " + head + ")");
        }
        ensureRoom(s, len + 1L);
        System.arraycopy(k, kOff, keys[s], len * keyDim, keyDim);
        System.arraycopy(v, vOff, values[s], len * valueDim, valueDim);
        positions[s][len] = position;
        lengths[s] = len + 1;
    }

    /**
     * Keeps only the rows at {@code keptIndicesAscending} (strictly ascending indices into the
     * current rows), compacting them to the front in the same order. The capacity is unchanged.
     */
    public void retain(int layer, int head, int[] keptIndicesAscending) {
        int s = slot(layer, head);
        int len = lengths[s];
        int prev = -1;
        for (int idx : keptIndicesAscending) {
            if (idx <= prev || idx >= len) {
                throw new IllegalArgumentException("kept indices must be strictly ascending and below the length " + len
                        + ", got " + Arrays.toString(keptIndicesAscending));
            }
            prev = idx;
        }
        float[] ks = keys[s];
        float[] vs = values[s];
        int[] ps = positions[s];
        for (int dst = 0; dst < keptIndicesAscending.length; dst++) {
            int src = keptIndicesAscending[dst];
            if (src != dst) { // src > dst always, so moving front to back never overwrites a pending row
                System.arraycopy(ks, src * keyDim, ks, dst * keyDim, keyDim);
                System.arraycopy(vs, src * valueDim, vs, dst * valueDim, valueDim);
                ps[dst] = ps[src];
            }
        }
        lengths[s] = keptIndicesAscending.length;
    }

    /** Bytes held by the valid rows: keys, values and the 4-byte position of each row. */
    public long bytesInUse() {
        long rows = 0;
        for (int len : lengths) {
            rows += len;
        }
        return rows * bytesPerRow();
    }

    /** Bytes of all allocated rows (valid or not). */
    public long bytesAllocated() {
        long rows = 0;
        for (int[] p : positions) {
            rows += p.length;
        }
        return rows * bytesPerRow();
    }

    private long bytesPerRow() {
        return 4L * (keyDim + valueDim + 1);
    }

    /** A deep copy (same contents, lengths and capacities). */
    public KvCache copy() {
        return new KvCache(this);
    }

    /** Empties every head; keeps the allocated storage for reuse. */
    public void clear() {
        Arrays.fill(lengths, 0);
    }
}

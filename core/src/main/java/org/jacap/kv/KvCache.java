package org.jacap.kv;

import java.util.Arrays;
import java.util.Objects;

/**
 * Post-RoPE keys, values and original positions, per (layer, KV head). Every head keeps its own
 * entries and length, so an eviction policy may keep different tokens in different heads. Rows
 * are appended in position order and {@link #retain} keeps their order, so positions within a
 * head are ascending. Kept keys are never re-rotated: a token keeps the RoPE angle of the
 * position it was computed at, and new tokens continue at their true positions.
 *
 * <p>Keys and values are stored as their {@link KvCacheTypes} say (f32, f16 or q8_0) and read
 * back as float ({@link #keyRows}, {@link #keys}); eviction scores what is stored.
 *
 * <p>Windowed layers (sliding-window attention) hold at most their window's worth of rows plus
 * one chunk: {@link #dropBefore} removes rows no later query can see, in O(1) (a head's rows
 * start at an offset that only moves back to 0 when the array must make room). Their bound is
 * their own; {@link #maxLength()} and the capacity limit concern the layers that attend globally.
 *
 * <p>Each head's arrays grow geometrically when an append needs room, up to the layer's maximum.
 */
public final class KvCache {
    private final int layers;
    private final int kvHeads;
    private final int keyDim;
    private final int valueDim;
    private final int maxCapacity;
    private final KvCacheTypes types;
    /** Per layer: 0 for global attention, else the most rows a head of that windowed layer holds. */
    private final int[] windowRows;

    private final boolean anyGlobal;
    private final KvRows[] keys;
    private final KvRows[] values;
    private final int[][] positions;
    private final int[] starts;
    private final int[] lengths;
    /** Per head: the largest |v| appended since the last clear (NaN after a non-finite one); see {@link #valueBound}. */
    private final float[] appendedValueMagnitude;

    /** An f32 cache without an upper bound on its capacity (it grows as long as appends need). */
    public KvCache(int layers, int kvHeads, int keyDim, int valueDim, int initialCapacity) {
        this(layers, kvHeads, keyDim, valueDim, initialCapacity, Integer.MAX_VALUE);
    }

    /**
     * An f32 cache without windowed layers whose heads start with room for {@code initialCapacity}
     * rows and grow (doubling) up to {@code maxCapacity} rows; an append beyond it fails.
     */
    public KvCache(int layers, int kvHeads, int keyDim, int valueDim, int initialCapacity, int maxCapacity) {
        this(layers, kvHeads, keyDim, valueDim, initialCapacity, maxCapacity, KvCacheTypes.F32, new int[layers]);
    }

    /**
     * The general form.
     *
     * @param types      storage of keys and values
     * @param windowRows per layer: 0 where attention is global (bounded by {@code maxCapacity}), else
     *                   the most rows a head of that windowed layer may hold (its window − 1 + a chunk)
     * @throws org.jacap.JacapException when a storage type does not fit the head sizes (q8_0 needs multiples of 32)
     */
    public KvCache(
            int layers,
            int kvHeads,
            int keyDim,
            int valueDim,
            int initialCapacity,
            int maxCapacity,
            KvCacheTypes types,
            int[] windowRows) {
        if (layers < 1 || kvHeads < 1 || keyDim < 1 || valueDim < 1) {
            throw new IllegalArgumentException("layers, kvHeads, keyDim and valueDim must be >= 1, got " + layers + ", "
                    + kvHeads + ", " + keyDim + ", " + valueDim);
        }
        if (initialCapacity < 0 || maxCapacity < 1 || initialCapacity > maxCapacity) {
            throw new IllegalArgumentException("need 0 <= initialCapacity <= maxCapacity and maxCapacity >= 1, got "
                    + initialCapacity + ", " + maxCapacity);
        }
        Objects.requireNonNull(types, "types");
        if (windowRows.length != layers) {
            throw new IllegalArgumentException(
                    "windowRows has " + windowRows.length + " entries for " + layers + " layers");
        }
        types.keys().checkDim(keyDim, "key");
        types.values().checkDim(valueDim, "value");
        this.layers = layers;
        this.kvHeads = kvHeads;
        this.keyDim = keyDim;
        this.valueDim = valueDim;
        this.maxCapacity = maxCapacity;
        this.types = types;
        this.windowRows = windowRows.clone();
        boolean global = false;
        for (int w : windowRows) {
            if (w < 0) {
                throw new IllegalArgumentException("window rows must be >= 0, got " + Arrays.toString(windowRows));
            }
            global |= w == 0;
        }
        this.anyGlobal = global;
        int n = layers * kvHeads;
        this.keys = new KvRows[n];
        this.values = new KvRows[n];
        this.positions = new int[n][];
        this.starts = new int[n];
        this.lengths = new int[n];
        this.appendedValueMagnitude = new float[n];
        for (int i = 0; i < n; i++) {
            int cap = Math.min(initialCapacity, layerMax(i / kvHeads));
            keys[i] = types.keys().rows(keyDim, cap);
            values[i] = types.values().rows(valueDim, cap);
            positions[i] = new int[cap];
        }
    }

    private KvCache(KvCache src) {
        this.layers = src.layers;
        this.kvHeads = src.kvHeads;
        this.keyDim = src.keyDim;
        this.valueDim = src.valueDim;
        this.maxCapacity = src.maxCapacity;
        this.types = src.types;
        this.windowRows = src.windowRows;
        this.anyGlobal = src.anyGlobal;
        int n = layers * kvHeads;
        this.keys = new KvRows[n];
        this.values = new KvRows[n];
        this.positions = new int[n][];
        this.starts = src.starts.clone();
        this.lengths = src.lengths.clone();
        this.appendedValueMagnitude = src.appendedValueMagnitude.clone();
        for (int i = 0; i < n; i++) {
            // The copy gets exactly the source's capacity so that it behaves identically.
            keys[i] = src.keys[i].copy();
            values[i] = src.values[i].copy();
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

    public KvCacheTypes types() {
        return types;
    }

    /** The most rows one head of a global layer may hold ({@link Integer#MAX_VALUE} when unbounded). */
    public int maxCapacity() {
        return maxCapacity;
    }

    /** Whether {@code layer} attends over a sliding window (its rows are bounded by the window). */
    public boolean isWindowed(int layer) {
        return windowRows[layer] > 0;
    }

    /**
     * Layers before the first global-attention one: eviction never touches them, so compressed
     * copies of one cache agree there (an evaluation runs those blocks once for all of them).
     */
    public int leadingWindowedLayers() {
        int l = 0;
        while (l < layers && isWindowed(l)) {
            l++;
        }
        return l;
    }

    private int layerMax(int layer) {
        return windowRows[layer] > 0 ? windowRows[layer] : maxCapacity;
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

    /**
     * The longest head of the layers that attend globally (of all layers when none does): what the
     * context and an eviction budget bound. Windowed layers bound themselves.
     */
    public int maxLength() {
        int m = 0;
        for (int i = 0; i < lengths.length; i++) {
            if (!anyGlobal || windowRows[i / kvHeads] == 0) {
                m = Math.max(m, lengths[i]);
            }
        }
        return m;
    }

    /** The longest head over all layers, windowed ones included. */
    public int longestHead() {
        int m = 0;
        for (int len : lengths) {
            m = Math.max(m, len);
        }
        return m;
    }

    /**
     * The keys of this head's valid rows as float: the live array for f32 storage, else
     * {@code scratch} (at least {@code length * keyDim} floats) filled from the stored values.
     */
    public FloatRows keyRows(int layer, int head, float[] scratch) {
        int s = slot(layer, head);
        return floatRows(keys[s], s, keyDim, scratch);
    }

    /** The values of this head's valid rows as float; see {@link #keyRows}. */
    public FloatRows valueRows(int layer, int head, float[] scratch) {
        int s = slot(layer, head);
        return floatRows(values[s], s, valueDim, scratch);
    }

    private FloatRows floatRows(KvRows rows, int s, int dim, float[] scratch) {
        if (rows instanceof F32Rows f) {
            return new FloatRows(f.array(), starts[s] * dim);
        }
        rows.read(starts[s], lengths[s], scratch, 0);
        return new FloatRows(scratch, 0);
    }

    /**
     * Keys of this head's rows {@code [row, row + count)} as float into {@code dst} from {@code dstOff}:
     * a tile of {@link #keyRows}, for attention that visits the rows a few at a time.
     */
    public void readKeys(int layer, int head, int row, int count, float[] dst, int dstOff) {
        int s = slot(layer, head);
        Objects.checkFromIndexSize(row, count, lengths[s]);
        keys[s].read(starts[s] + row, count, dst, dstOff);
    }

    /** Values of this head's rows {@code [row, row + count)}; see {@link #readKeys}. */
    public void readValues(int layer, int head, int row, int count, float[] dst, int dstOff) {
        int s = slot(layer, head);
        Objects.checkFromIndexSize(row, count, lengths[s]);
        values[s].read(starts[s] + row, count, dst, dstOff);
    }

    /** A copy of this head's keys as float {@code [length * keyDim]}, row i at {@code i * keyDim}. */
    public float[] keys(int layer, int head) {
        int s = slot(layer, head);
        float[] out = new float[lengths[s] * keyDim];
        keys[s].read(starts[s], lengths[s], out, 0);
        return out;
    }

    /** A copy of this head's values as float {@code [length * valueDim]}. */
    public float[] values(int layer, int head) {
        int s = slot(layer, head);
        float[] out = new float[lengths[s] * valueDim];
        values[s].read(starts[s], lengths[s], out, 0);
        return out;
    }

    /** A copy of this head's original positions {@code [length]}, ascending. */
    public int[] positions(int layer, int head) {
        int s = slot(layer, head);
        return Arrays.copyOfRange(positions[s], starts[s], starts[s] + lengths[s]);
    }

    /** The original position of row {@code row}. */
    public int position(int layer, int head, int row) {
        int s = slot(layer, head);
        if (row < 0 || row >= lengths[s]) {
            throw new IndexOutOfBoundsException("row " + row + " outside the " + lengths[s] + " rows");
        }
        return positions[s][starts[s] + row];
    }

    /** The first row among the first {@code end} whose position is at least {@code minPosition} ({@code end} if none). */
    public int firstRowFrom(int layer, int head, int end, int minPosition) {
        int s = slot(layer, head);
        int[] p = positions[s];
        int base = starts[s];
        int lo = 0;
        int hi = end;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (p[base + mid] < minPosition) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Makes room for {@code rows} more rows in this head (growing geometrically), without appending. */
    public void reserve(int layer, int head, int rows) {
        int s = slot(layer, head);
        ensureRoom(s, (long) lengths[s] + rows);
    }

    private void ensureRoom(int s, long needed) {
        int cap = positions[s].length;
        int start = starts[s];
        if (start + needed <= cap) {
            return;
        }
        if (needed <= cap) {
            compact(s);
            return;
        }
        int max = layerMax(s / kvHeads);
        if (needed > max) {
            throw new IllegalStateException("KV cache head (layer " + s / kvHeads + ", KV head " + s % kvHeads
                    + ") would need " + needed + " rows, more than its maximum capacity of " + max);
        }
        long grown = Math.max(needed, Math.max(16L, 2L * cap));
        int newCap = (int) Math.min(grown, max);
        keys[s] = keys[s].resized(newCap);
        values[s] = values[s].resized(newCap);
        positions[s] = Arrays.copyOf(positions[s], newCap);
        compact(s);
    }

    /** Moves the head's rows back to the front of its arrays. */
    private void compact(int s) {
        int start = starts[s];
        if (start == 0) {
            return;
        }
        int len = lengths[s];
        keys[s].move(start, 0, len);
        values[s].move(start, 0, len);
        System.arraycopy(positions[s], start, positions[s], 0, len);
        starts[s] = 0;
    }

    /**
     * Appends one row: {@code keyDim} floats of {@code k} from {@code kOff}, {@code valueDim} floats
     * of {@code v} from {@code vOff}, at original position {@code position}, converted to the storage types.
     */
    public void append(int layer, int head, int position, float[] k, int kOff, float[] v, int vOff) {
        int s = slot(layer, head);
        int len = lengths[s];
        if (len > 0 && positions[s][starts[s] + len - 1] >= position) {
            throw new IllegalArgumentException("position " + position + " is not after the last stored position "
                    + positions[s][starts[s] + len - 1] + " (layer " + layer + ", KV head " + head + ")");
        }
        ensureRoom(s, len + 1L);
        int row = starts[s] + len;
        keys[s].write(row, k, kOff);
        values[s].write(row, v, vOff);
        positions[s][row] = position;
        lengths[s] = len + 1;
        float most = appendedValueMagnitude[s];
        for (int c = 0; c < valueDim; c++) {
            most = Math.max(most, Math.abs(v[vOff + c])); // NaN stays NaN
        }
        appendedValueMagnitude[s] = most;
    }

    /**
     * A bound on |v| for every value this head holds: the largest appended since the last
     * {@link #clear}, with room for the storage's rounding (F16 raises a magnitude by at most
     * 2^-11 of itself or, below 2^-14, by 2^-24; Q8_0 by at most 2^-11 of the row's largest, its
     * scale rounded to F16); NaN or infinity once a non-finite value was appended. Eviction only
     * removes rows, so the bound stays true. Decoding over an F16 cache uses it to round its
     * accumulator cheaply ({@code HalfOnlineAttention.updateHeads}).
     */
    public float valueBound(int layer, int head) {
        return appendedValueMagnitude[slot(layer, head)] * 1.001f + 0x1p-24f;
    }

    /**
     * Drops the rows whose position is below {@code minPosition} (the oldest ones, positions
     * ascend) in O(1); returns how many.
     */
    public int dropBefore(int layer, int head, int minPosition) {
        int s = slot(layer, head);
        int n = firstRowFrom(layer, head, lengths[s], minPosition);
        starts[s] += n;
        lengths[s] -= n;
        if (lengths[s] == 0) {
            starts[s] = 0;
        }
        return n;
    }

    /**
     * Keeps only the rows at {@code keptIndicesAscending} (strictly ascending indices into the
     * current rows), compacting them in the same order. The capacity is unchanged.
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
        int base = starts[s];
        int[] ps = positions[s];
        for (int dst = 0; dst < keptIndicesAscending.length; dst++) {
            int src = keptIndicesAscending[dst];
            if (src != dst) { // src > dst always, so moving front to back never overwrites a pending row
                keys[s].move(base + src, base + dst, 1);
                values[s].move(base + src, base + dst, 1);
                ps[base + dst] = ps[base + src];
            }
        }
        lengths[s] = keptIndicesAscending.length;
    }

    /** Valid rows over all layers and KV heads: the entries the cache holds. */
    public long entries() {
        long rows = 0;
        for (int len : lengths) {
            rows += len;
        }
        return rows;
    }

    /** Bytes held by the valid rows: keys and values in their storage types, and the 4-byte position of each row. */
    public long bytesInUse() {
        return entries() * bytesPerRow();
    }

    /** Bytes of all allocated rows (valid or not). */
    public long bytesAllocated() {
        long rows = 0;
        for (int[] p : positions) {
            rows += p.length;
        }
        return rows * bytesPerRow();
    }

    /** Bytes one row takes: its key, its value and its position. */
    public long bytesPerRow() {
        return types.keys().bytesPerRow(keyDim) + types.values().bytesPerRow(valueDim) + 4L;
    }

    /** A deep copy (same contents, lengths and capacities). */
    public KvCache copy() {
        return new KvCache(this);
    }

    /** Empties every head; keeps the allocated storage for reuse. */
    public void clear() {
        Arrays.fill(lengths, 0);
        Arrays.fill(starts, 0);
        Arrays.fill(appendedValueMagnitude, 0f);
    }
}

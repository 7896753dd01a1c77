package org.jacap.model;

import org.jacap.kv.KvCache;
import org.jacap.simd.HalfOnlineAttention;
import org.jacap.simd.ThreadPool;

/**
 * Attention of a few queries (decoding, short prompts) over an F16 cache, as llama.cpp's CPU flash
 * attention computes it ({@link HalfOnlineAttention}), reading the cache a tile of rows at a time:
 * each tile is turned into floats once for all the query heads of its KV head and stays in the
 * first-level cache while they visit it. Before, every layer turned the whole cache into floats on
 * the calling thread first, for every token: at a depth of thousands of tokens that alone took
 * longer than the rest of the step.
 *
 * <p>One item is one token's queries of one KV head, or a part of them when there are few items a
 * thread (Gemma 3 270M decodes one KV head: its four query heads go one by one to the threads).
 * Every head's arithmetic is the same whatever the split, so the thread count does not change the
 * result.
 */
final class HalfCacheAttention implements ThreadPool.RangeTask {
    /** Floats of keys plus values per tile: 32 KiB, within a first-level data cache. */
    private static final int TILE_FLOATS = 8192;

    private final float[][] keyTiles;
    private final float[][] valueTiles;
    private final float[][] states;

    private KvCache cache;
    private LayerConfig layer;
    private int firstPosition;
    private int[] lengthBefore;
    private float[] q;
    private float[] out;
    private int parts;
    private int headsPerPart;

    HalfCacheAttention(int threads, int maxKeyLength, int maxValueLength, int maxGroupSize) {
        int rows = tileRows(maxKeyLength, maxValueLength);
        keyTiles = new float[threads][rows * maxKeyLength];
        valueTiles = new float[threads][rows * maxValueLength];
        states = new float[threads][maxGroupSize * HalfOnlineAttention.stateSize(maxKeyLength, maxValueLength)];
    }

    /**
     * The first of KV head g's rows [0, end) that a query at {@code position} sees: 0 on a global
     * layer, the first inside the window on a sliding one (the cache keeps rows in position order).
     */
    static int firstVisibleRow(KvCache cache, LayerConfig l, int g, int end, int position) {
        return l.isSliding() ? cache.firstRowFrom(l.index(), g, end, position - l.slidingWindow() + 1) : 0;
    }

    private static int tileRows(int dk, int dv) {
        return Math.max(8, TILE_FLOATS / (dk + dv));
    }

    /**
     * Prepares the {@code tokens} queries {@code q} ({@code [tokens][queryDim]}) of {@code layer}, whose
     * chunk starts at {@code firstPosition} and was appended after {@code lengthBefore[g]} rows of
     * KV head g, writing {@code out} ({@code [tokens][attentionOutputDim]}); returns the item count.
     */
    int set(
            KvCache cache,
            LayerConfig layer,
            int tokens,
            int firstPosition,
            int[] lengthBefore,
            float[] q,
            float[] out,
            int threads) {
        this.cache = cache;
        this.layer = layer;
        this.firstPosition = firstPosition;
        this.lengthBefore = lengthBefore;
        this.q = q;
        this.out = out;
        int items = tokens * layer.headCountKv();
        // With fewer than ~4 items a thread, split each KV head's query heads: a split converts
        // the tiles once more (cheap, vcvtph2ps), while an idle thread wastes a whole share.
        int wanted = threads == 1 ? 1 : Math.min(layer.groupSize(), Math.max(1, (4 * threads + items - 1) / items));
        this.headsPerPart = (layer.groupSize() + wanted - 1) / wanted;
        this.parts = (layer.groupSize() + headsPerPart - 1) / headsPerPart; // no part left without a head
        return items * parts;
    }

    @Override
    public void run(int start, int end, int worker) {
        for (int item = start; item < end; item++) {
            int part = item % parts;
            int g = (item / parts) % layer.headCountKv();
            int t = item / (parts * layer.headCountKv());
            int firstHead = g * layer.groupSize() + part * headsPerPart;
            int heads = Math.min(headsPerPart, (g + 1) * layer.groupSize() - firstHead);
            attend(t, g, firstHead, heads, worker);
        }
    }

    /** Query heads [firstHead, +heads) of token t, all of KV head g, over that head's visible rows. */
    private void attend(int t, int g, int firstHead, int heads, int worker) {
        LayerConfig l = layer;
        int il = l.index();
        int dk = l.keyLength();
        int dv = l.valueLength();
        int end = lengthBefore[g] + t + 1;
        int begin = firstVisibleRow(cache, l, g, end, firstPosition + t);
        float[] state = states[worker];
        int size = HalfOnlineAttention.stateSize(dk, dv);
        for (int i = 0; i < heads; i++) {
            HalfOnlineAttention.begin(q, t * l.queryDim() + (firstHead + i) * dk, dk, dv, state, i * size);
        }
        float[] keys = keyTiles[worker];
        float[] values = valueTiles[worker];
        int tile = tileRows(dk, dv);
        for (int row = begin; row < end; row += tile) {
            int count = Math.min(tile, end - row);
            cache.readKeys(il, g, row, count, keys, 0);
            cache.readValues(il, g, row, count, values, 0);
            for (int i = 0; i < heads; i++) {
                HalfOnlineAttention.update(state, i * size, dk, dv, keys, 0, values, 0, count, l.attentionScale());
            }
        }
        for (int i = 0; i < heads; i++) {
            HalfOnlineAttention.finish(state, i * size, dk, dv, out, t * l.attentionOutputDim() + (firstHead + i) * dv);
        }
    }
}

package org.jacap.model;

import org.jacap.kv.KvCache;
import org.jacap.simd.HalfOnlineAttention;
import org.jacap.simd.ThreadPool;

/**
 * Attention of a few queries (decoding, short prompts) over an F16 cache, as llama.cpp's CPU flash
 * attention computes it ({@link HalfOnlineAttention}), reading the cache a tile of rows at a time:
 * each tile is turned into floats once for all the query heads of its KV head and stays in the
 * first-level cache while they visit it ({@link HalfOnlineAttention#updateHeads}, with the cache's
 * bound on the values, {@link KvCache#valueBound}, which lets it round cheaply). Before, every
 * layer turned the whole cache into floats on the calling thread first, for every token: at a
 * depth of thousands of tokens that alone took longer than the rest of the step.
 *
 * <p>One item is one token's queries of one KV head over one chunk of its rows
 * ({@link HalfOnlineAttention#CHUNK_ROWS}: a context of 4,096 rows gives four items a KV head, each
 * converting its own tiles once), or a part of those queries when there are still few items a
 * thread (Gemma 3 270M decodes one KV head: its four query heads go one by one to the threads).
 * The chunks' states are folded in chunk order after the threads finish ({@link #foldChunks}), as
 * {@link HalfOnlineAttention#attend} folds them: every head's arithmetic is the same whatever the
 * split, so the thread count does not change the result.
 */
final class HalfCacheAttention implements ThreadPool.RangeTask {
    /** Floats of keys plus values per tile: 32 KiB, within a first-level data cache. */
    private static final int TILE_FLOATS = 8192;

    private final float[][] keyTiles;
    private final float[][] valueTiles;
    private final float[][] states;
    /** Each (token, query head, chunk)'s accumulator block when a head has more than one chunk; grows. */
    private float[] chunkBlocks = new float[0];

    private final float[] folded;

    private KvCache cache;
    private LayerConfig layer;
    private int firstPosition;
    private int[] lengthBefore;
    private float[] q;
    private float[] out;
    private int parts;
    private int headsPerPart;
    private int tokens;
    /** Chunks per (token, KV head): the most any of them needs (the others' extra items do nothing). */
    private int chunks;

    HalfCacheAttention(int threads, int maxKeyLength, int maxValueLength, int maxGroupSize) {
        int rows = tileRows(maxKeyLength, maxValueLength);
        keyTiles = new float[threads][rows * maxKeyLength];
        valueTiles = new float[threads][rows * maxValueLength];
        states = new float[threads][maxGroupSize * HalfOnlineAttention.stateSize(maxKeyLength, maxValueLength)];
        folded = new float[HalfOnlineAttention.foldedSize(maxValueLength)];
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
        this.tokens = tokens;
        int most = 0;
        for (int g = 0; g < layer.headCountKv(); g++) {
            for (int t = 0; t < tokens; t++) {
                most = Math.max(most, visibleRows(t, g));
            }
        }
        this.chunks = HalfOnlineAttention.chunks(most);
        int items = tokens * layer.headCountKv() * chunks;
        // With fewer than ~4 items a thread, split each KV head's query heads: a split converts
        // the tiles once more (cheap, vcvtph2ps), while an idle thread wastes a whole share.
        int wanted = threads == 1 ? 1 : Math.min(layer.groupSize(), Math.max(1, (4 * threads + items - 1) / items));
        this.headsPerPart = (layer.groupSize() + wanted - 1) / wanted;
        this.parts = (layer.groupSize() + headsPerPart - 1) / headsPerPart; // no part left without a head
        if (chunks > 1) {
            int size = tokens * layer.headCount() * chunks * HalfOnlineAttention.foldedSize(layer.valueLength());
            if (chunkBlocks.length < size) {
                chunkBlocks = new float[size];
            }
        }
        return items * parts;
    }

    @Override
    public void run(int start, int end, int worker) {
        for (int item = start; item < end; item++) {
            int part = item % parts;
            int chunk = (item / parts) % chunks;
            int g = (item / (parts * chunks)) % layer.headCountKv();
            int t = item / (parts * chunks * layer.headCountKv());
            int firstHead = g * layer.groupSize() + part * headsPerPart;
            int heads = Math.min(headsPerPart, (g + 1) * layer.groupSize() - firstHead);
            attend(t, g, chunk, firstHead, heads, worker);
        }
    }

    /**
     * After the threads: folds each (token, query head) over more than one chunk in chunk order
     * into its output, on the calling thread (a few hundred floats a head).
     */
    void foldChunks() {
        if (chunks == 1) {
            return;
        }
        LayerConfig l = layer;
        int dv = l.valueLength();
        int block = HalfOnlineAttention.foldedSize(dv);
        for (int t = 0; t < tokens; t++) {
            for (int g = 0; g < l.headCountKv(); g++) {
                int own = HalfOnlineAttention.chunks(visibleRows(t, g));
                if (own == 1) {
                    continue; // finished by its item
                }
                for (int h = g * l.groupSize(); h < (g + 1) * l.groupSize(); h++) {
                    for (int c = 0; c < own; c++) {
                        HalfOnlineAttention.fold(chunkBlocks, blockOffset(t, h, c, block), folded, 0, dv, c == 0);
                    }
                    HalfOnlineAttention.finishFolded(folded, 0, dv, out, t * l.attentionOutputDim() + h * dv);
                }
            }
        }
    }

    /** Rows of KV head g that token t sees: its own and those before it, inside a sliding window. */
    private int visibleRows(int t, int g) {
        int end = lengthBefore[g] + t + 1;
        return end - firstVisibleRow(cache, layer, g, end, firstPosition + t);
    }

    private int blockOffset(int t, int h, int chunk, int block) {
        return ((t * layer.headCount() + h) * chunks + chunk) * block;
    }

    /**
     * Query heads [firstHead, +heads) of token t, all of KV head g, over chunk {@code chunk} of that
     * head's visible rows: finished into the output when the rows are one chunk, else their
     * accumulator blocks kept for {@link #foldChunks}.
     */
    private void attend(int t, int g, int chunk, int firstHead, int heads, int worker) {
        LayerConfig l = layer;
        int il = l.index();
        int dk = l.keyLength();
        int dv = l.valueLength();
        int end = lengthBefore[g] + t + 1;
        int rows = visibleRows(t, g);
        int first = end - rows + chunk * HalfOnlineAttention.CHUNK_ROWS;
        if (first >= end) {
            return; // this (token, KV head) has fewer chunks than the most
        }
        int last = Math.min(end, first + HalfOnlineAttention.CHUNK_ROWS);
        boolean single = HalfOnlineAttention.chunks(rows) == 1;
        float[] state = states[worker];
        int size = HalfOnlineAttention.stateSize(dk, dv);
        for (int i = 0; i < heads; i++) {
            HalfOnlineAttention.begin(q, t * l.queryDim() + (firstHead + i) * dk, dk, dv, state, i * size);
        }
        float valueBound = cache.valueBound(il, g);
        float[] keys = keyTiles[worker];
        float[] values = valueTiles[worker];
        int tile = tileRows(dk, dv);
        for (int row = first; row < last; row += tile) {
            int count = Math.min(tile, last - row);
            cache.readKeys(il, g, row, count, keys, 0);
            cache.readValues(il, g, row, count, values, 0);
            HalfOnlineAttention.updateHeads(
                    state, 0, heads, dk, dv, keys, 0, values, 0, count, l.attentionScale(), valueBound);
        }
        int block = HalfOnlineAttention.foldedSize(dv);
        for (int i = 0; i < heads; i++) {
            if (single) {
                HalfOnlineAttention.finish(
                        state, i * size, dk, dv, out, t * l.attentionOutputDim() + (firstHead + i) * dv);
            } else {
                System.arraycopy(state, i * size + dk, chunkBlocks, blockOffset(t, firstHead + i, chunk, block), block);
            }
        }
    }
}

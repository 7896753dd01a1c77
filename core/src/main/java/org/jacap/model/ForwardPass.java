package org.jacap.model;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jacap.kv.FloatRows;
import org.jacap.kv.ForwardObserver;
import org.jacap.kv.KvCache;
import org.jacap.kv.KvStorage;
import org.jacap.simd.Activations;
import org.jacap.simd.Attention;
import org.jacap.simd.Dequantize;
import org.jacap.simd.GeluTable;
import org.jacap.simd.HalfOnlineAttention;
import org.jacap.simd.MatMul;
import org.jacap.simd.Precision;
import org.jacap.simd.RmsNorm;
import org.jacap.simd.Rope;
import org.jacap.simd.Softmax;
import org.jacap.simd.ThreadPool;
import org.jacap.simd.VectorOps;
import org.jacap.simd.WeightMatrix;

/**
 * The transformer forward pass over a chunk of tokens: activations are {@code [tokens][width]}
 * flat arrays and every projection is one batched {@link MatMul#multiply}. It reads the
 * per-block {@link LayerConfig} and the optional parts of {@link LayerWeights} (biases, q/k norms,
 * post-norms) and has no architecture cases of its own.
 *
 * <p>Not thread-safe: {@link Model} serializes calls. Scratch is owned here, grown on demand
 * (never per token) up to {@link #maxChunk} rows.
 */
final class ForwardPass {
    private final ModelConfig config;
    private final ModelWeights weights;
    private final ThreadPool pool;
    private final MatMul matmul;
    private final int maxChunk;
    /** What makes two blocks' RoPE tables the same (the layout is the architecture's, shared by all). */
    private record RopeSetup(int keyLength, int ropeDimension, float ropeBase, float ropeFreqScale) {}

    /** Distinct RoPE setups and which one each block uses (Gemma 3 has two). */
    private final Rope[] ropes;

    private final int[] ropeOfLayer;
    private final long embeddingRowBytes;

    /** Per layer, the matrices that read one normed input: query/key/value and gate/up ({@link MatMul#multiplyShared}). */
    private final WeightMatrix[][] qkv;

    private final WeightMatrix[][] gateUp;

    private Workspace ws;
    private final AttentionTask attentionTask = new AttentionTask();
    private final HalfCacheAttention halfCacheAttention;

    ForwardPass(ModelConfig config, ModelWeights weights, ThreadPool pool, MatMul matmul, int maxChunk) {
        this.config = config;
        this.weights = weights;
        this.pool = pool;
        this.matmul = matmul;
        this.maxChunk = maxChunk;
        this.nativeAttention = matmul.precision() == Precision.NATIVE;
        List<Rope> distinct = new ArrayList<>();
        List<RopeSetup> keys = new ArrayList<>();
        this.ropeOfLayer = new int[config.blockCount()];
        for (LayerConfig l : config.layers()) {
            RopeSetup key = new RopeSetup(l.keyLength(), l.ropeDimension(), l.ropeBase(), l.ropeFreqScale());
            int idx = keys.indexOf(key);
            if (idx < 0) {
                idx = distinct.size();
                keys.add(key);
                distinct.add(new Rope(
                        l.keyLength(),
                        l.ropeDimension(),
                        l.ropeBase(),
                        l.ropeFreqScale(),
                        weights.ropeFactors(),
                        l.ropeLayout()));
            }
            ropeOfLayer[l.index()] = idx;
        }
        this.ropes = distinct.toArray(Rope[]::new);
        this.qkv = new WeightMatrix[config.blockCount()][];
        this.gateUp = new WeightMatrix[config.blockCount()][];
        for (int il = 0; il < config.blockCount(); il++) {
            AttentionWeights a = weights.layers().get(il).attention();
            FeedForwardWeights f = weights.layers().get(il).feedForward();
            qkv[il] = new WeightMatrix[] {
                a.query().weight(), a.key().weight(), a.value().weight()
            };
            gateUp[il] = new WeightMatrix[] {f.gate(), f.up()};
        }
        WeightMatrix emb = weights.tokenEmbedding();
        this.embeddingRowBytes = emb.type().bytesFor(emb.cols());
        this.ws = new Workspace(0, 0);
        this.halfCacheAttention = new HalfCacheAttention(
                pool.threads(),
                config.maxOverLayers(LayerConfig::keyLength),
                config.maxOverLayers(LayerConfig::valueLength),
                config.maxOverLayers(LayerConfig::groupSize));
    }

    int maxChunk() {
        return maxChunk;
    }

    /**
     * See {@link Model#forwardRows}: the logits of rows [firstRow, len); the caller has validated
     * the arguments and the context.
     */
    float[] forward(InferenceState st, int[] tokens, int off, int len, int firstRow) {
        int vocab = config.vocabSize();
        float[] logits = new float[Math.multiplyExact(len - firstRow, vocab)];
        for (int done = 0; done < len; ) {
            int n = Math.min(maxChunk, len - done);
            ChunkListener listener = st.chunkListener();
            if (listener != null) {
                listener.beforeChunk(st, n);
                Model.checkContext(st, n);
            }
            runChunk(st, tokens, off + done, n);
            int first = Math.max(0, firstRow - done); // this chunk's first row with logits
            if (first < n) {
                computeLogits(first, n - first, logits, (done + first - firstRow) * vocab);
            }
            st.advance(n);
            done += n;
        }
        return logits;
    }

    private void ensureWorkspace(int rows, int cacheRows) {
        if (ws.rows < rows || ws.cacheRows < cacheRows) {
            // Rows grow to what the call needs (≤ maxChunk); cache rows geometrically.
            int r = Math.max(rows, ws.rows);
            int c = Math.max(cacheRows, ws.cacheRows);
            if (c > ws.cacheRows) {
                c = (int) Math.min(Integer.MAX_VALUE, Math.max(c, 2L * ws.cacheRows));
            }
            ws = new Workspace(r, c);
        }
    }

    /** Embeds and runs {@code n} tokens through every block; leaves the final hidden states in ws.x. */
    private void runChunk(InferenceState st, int[] tokens, int off, int n) {
        KvCache cache = st.kvCache();
        ensureWorkspace(n, cache.longestHead() + n);
        int p0 = st.position();
        embed(tokens, off, n, p0);
        runBlocks(st, 0, n, p0);
    }

    /** The chunk's embeddings into ws.x and its RoPE tables. */
    private void embed(int[] tokens, int off, int n, int p0) {
        Workspace w = ws;
        int embd = config.embeddingLength();
        WeightMatrix emb = weights.tokenEmbedding();
        MemorySegment embData = emb.data();
        for (int t = 0; t < n; t++) {
            Dequantize.row(emb.type(), embData, tokens[off + t] * embeddingRowBytes, w.x, t * embd, embd);
        }
        if (config.embeddingScale() != 1f) {
            VectorOps.scale(w.x, 0, n * embd, config.embeddingScale());
        }
        fillRopeTables(n, p0);
    }

    private void fillRopeTables(int n, int p0) {
        for (int r = 0; r < ropes.length; r++) {
            for (int t = 0; t < n; t++) {
                ropes[r].fillTable(p0 + t, ws.ropeTable(r, t));
            }
        }
    }

    /** Blocks [from, blockCount) over the chunk in ws.x. */
    private void runBlocks(InferenceState st, int from, int n, int p0) {
        ForwardObserver observer = st.observer();
        for (int il = from; il < config.blockCount(); il++) {
            attentionBlock(st, il, n, p0, observer);
            feedForwardBlock(il, n);
            if (observer != null) {
                observer.onLayerEnd(il, p0, n);
            }
        }
    }

    /**
     * See {@link Model#forwardPrefix}: runs blocks [0, layers) of one chunk on a copy of {@code st}
     * (the state itself is not changed) and keeps what {@link #forwardFrom} needs.
     */
    BlockPrefix forwardPrefix(InferenceState st, int[] tokens, int off, int n, int layers) {
        InferenceState scratch = st.copy();
        KvCache cache = scratch.kvCache();
        ensureWorkspace(n, cache.longestHead() + n);
        int p0 = scratch.position();
        embed(tokens, off, n, p0);
        float[][] keys = new float[layers][];
        float[][] values = new float[layers][];
        int[][] lengthsBefore = new int[layers][config.headCountKv()];
        for (int il = 0; il < layers; il++) {
            LayerConfig l = config.layer(il);
            for (int g = 0; g < l.headCountKv(); g++) {
                lengthsBefore[il][g] = cache.length(il, g);
            }
            attentionBlock(scratch, il, n, p0, null);
            keys[il] = Arrays.copyOf(ws.k, n * l.keyDim());
            values[il] = Arrays.copyOf(ws.v, n * l.valueDim());
            feedForwardBlock(il, n);
        }
        float[] hidden = Arrays.copyOf(ws.x, n * config.embeddingLength());
        return new BlockPrefix(config, p0, n, layers, hidden, keys, values, lengthsBefore);
    }

    /**
     * See {@link Model#forwardFrom}: appends the prefix's keys and values to blocks [0, layers) of
     * {@code st} as the full pass would, then runs the remaining blocks from its hidden rows.
     */
    float[] forwardFrom(InferenceState st, BlockPrefix prefix, int firstRow) {
        int n = prefix.length();
        int p0 = prefix.position;
        KvCache cache = st.kvCache();
        ensureWorkspace(n, cache.longestHead() + n);
        System.arraycopy(prefix.hidden, 0, ws.x, 0, prefix.hidden.length);
        fillRopeTables(n, p0);
        for (int il = 0; il < prefix.layers; il++) {
            appendChunk(cache, config.layer(il), n, p0, prefix.keys[il], prefix.values[il], null);
        }
        runBlocks(st, prefix.layers, n, p0);
        int vocab = config.vocabSize();
        float[] logits = new float[Math.multiplyExact(n - firstRow, vocab)];
        computeLogits(firstRow, n - firstRow, logits, 0);
        st.advance(n);
        return logits;
    }

    /**
     * Native precision with an F16 cache (llama.cpp's default, whose CPU flash attention then
     * accumulates in F16) attends small batches as llama.cpp does ({@link HalfOnlineAttention}).
     */
    private final boolean nativeAttention;

    private void attentionBlock(InferenceState st, int il, int n, int p0, ForwardObserver observer) {
        Workspace w = ws;
        LayerConfig l = config.layer(il);
        AttentionWeights a = weights.layers().get(il).attention();
        int embd = config.embeddingLength();
        float eps = config.rmsNormEps();
        int qDim = l.queryDim();
        int kDim = l.keyDim();
        int vDim = l.valueDim();
        int dk = l.keyLength();
        int dv = l.valueLength();

        RmsNorm.applyRows(w.x, 0, a.norm(), 0, embd, n, eps, w.xb, 0);
        matmul.multiplyShared(qkv[il], w.xb, 0, n, w.qkvOut);
        addBias(a.query(), n, w.q);
        addBias(a.key(), n, w.k);
        addBias(a.value(), n, w.v);
        if (a.queryNorm() != null) {
            RmsNorm.applyRows(w.q, 0, a.queryNorm(), 0, dk, n * l.headCount(), eps, w.q, 0);
        }
        if (a.keyNorm() != null) {
            RmsNorm.applyRows(w.k, 0, a.keyNorm(), 0, dk, n * l.headCountKv(), eps, w.k, 0);
        }
        if (observer != null) {
            System.arraycopy(w.q, 0, w.qPre, 0, n * qDim);
        }
        Rope rope = ropes[ropeOfLayer[il]];
        for (int t = 0; t < n; t++) {
            float[] table = w.ropeTable(ropeOfLayer[il], t);
            rope.rotate(w.q, t * qDim, l.headCount(), table);
            rope.rotate(w.k, t * kDim, l.headCountKv(), table);
        }
        if (observer != null) {
            for (int t = 0; t < n; t++) {
                observer.onQuery(il, p0 + t, w.qPre, t * qDim, w.q, t * qDim);
            }
        }

        KvCache cache = st.kvCache();
        appendChunk(cache, l, n, p0, w.k, w.v, observer);
        if (tiledHalfAttention(cache, n, observer)) {
            int items = halfCacheAttention.set(cache, l, n, p0, w.lengthBefore, w.q, w.att, pool.threads());
            pool.parallelForDynamic(items, 1, halfCacheAttention);
            halfCacheAttention.foldChunks();
            finishAttention(a, n);
            return;
        }
        for (int g = 0; g < l.headCountKv(); g++) {
            // f32 rows are read in place; the other types into a float scratch, once per layer and chunk
            int len = cache.length(il, g);
            boolean f32Keys = cache.types().keys() == KvStorage.F32;
            boolean f32Values = cache.types().values() == KvStorage.F32;
            w.keyRows[g] = cache.keyRows(il, g, f32Keys ? null : w.kvScratch(g, 0, len * cache.keyDim()));
            w.valueRows[g] = cache.valueRows(il, g, f32Values ? null : w.kvScratch(g, 1, len * cache.valueDim()));
        }

        AttentionTask task = attentionTask;
        task.set(cache, l, n, p0);
        if (observer != null && observer.wantsAttention()) {
            task.runObserved(observer);
        } else {
            pool.parallelFor(n * task.itemsPerToken(), task);
        }
        finishAttention(a, n);
    }

    /** The attention rows in ws.att through the output projection (and post-norm) into the residual ws.x. */
    private void finishAttention(AttentionWeights a, int n) {
        Workspace w = ws;
        int embd = config.embeddingLength();
        project(a.output(), w.att, n, w.tmp);
        if (a.postNorm() != null) {
            RmsNorm.applyRows(w.tmp, 0, a.postNorm(), 0, embd, n, config.rmsNormEps(), w.tmp, 0);
        }
        VectorOps.add(w.tmp, 0, w.x, 0, n * embd);
    }

    /** The cache holds F16 keys and values and native precision reproduces llama.cpp's arithmetic on them. */
    private boolean halfCache(KvCache cache) {
        return nativeAttention
                && cache.types().keys() == KvStorage.F16
                && cache.types().values() == KvStorage.F16;
    }

    /**
     * llama.cpp's F16 flash-attention arithmetic for a batch under its tile of queries, with no
     * observer that needs the probabilities: {@link HalfCacheAttention} reads the cache in tiles.
     */
    private boolean tiledHalfAttention(KvCache cache, int n, ForwardObserver observer) {
        return halfCache(cache)
                && n < HalfOnlineAttention.LLAMA_TILE_QUERIES
                && (observer == null || !observer.wantsAttention());
    }

    /**
     * The chunk's keys {@code k} and values {@code v} ({@code [n][kvDim]}) into block l's cache, after
     * a sliding-window block drops the rows no query of this chunk or later can see; records each
     * head's length before the chunk in ws.lengthBefore.
     */
    private void appendChunk(
            KvCache cache, LayerConfig l, int n, int p0, float[] k, float[] v, ForwardObserver observer) {
        int il = l.index();
        int kDim = l.keyDim();
        int vDim = l.valueDim();
        int dk = l.keyLength();
        int dv = l.valueLength();
        for (int g = 0; g < l.headCountKv(); g++) {
            if (l.isSliding()) {
                int dropped = cache.dropBefore(il, g, p0 - l.slidingWindow() + 1);
                if (dropped > 0 && observer != null) {
                    observer.onEntriesDropped(il, g, dropped, cache.length(il, g));
                }
            }
            ws.lengthBefore[g] = cache.length(il, g);
            cache.reserve(il, g, n);
            for (int t = 0; t < n; t++) {
                cache.append(il, g, p0 + t, k, t * kDim + g * dk, v, t * vDim + g * dv);
            }
        }
    }

    private void feedForwardBlock(int il, int n) {
        Workspace w = ws;
        FeedForwardWeights f = weights.layers().get(il).feedForward();
        int embd = config.embeddingLength();
        int ff = config.feedForwardLength();
        float eps = config.rmsNormEps();
        RmsNorm.applyRows(w.x, 0, f.norm(), 0, embd, n, eps, w.xb, 0);
        matmul.multiplyShared(gateUp[il], w.xb, 0, n, w.gateUpOut);
        // token rows on the pool threads: the same values as one serial call, since each row is whole
        // vectors (ff a multiple of 16) or the kernel is elementwise (the GELU table)
        if (n > 1 && pool != null && (ff % 16 == 0 || tableGelu())) {
            pool.parallelFor(n, activationTask);
        } else {
            activate(0, n);
        }
        matmul.multiply(f.down(), w.gate, 0, n, w.tmp, 0);
        if (f.postNorm() != null) {
            RmsNorm.applyRows(w.tmp, 0, f.postNorm(), 0, embd, n, eps, w.tmp, 0);
        }
        VectorOps.add(w.tmp, 0, w.x, 0, n * embd);
    }

    private final ThreadPool.RangeTask activationTask = (from, to, worker) -> activate(from, to);

    private boolean tableGelu() {
        return config.activation() == FfnActivation.GELU_TANH && matmul.precision() == Precision.NATIVE;
    }

    /** gate ← act(gate)·up over the token rows [from, to). */
    private void activate(int from, int to) {
        Workspace w = ws;
        int ff = config.feedForwardLength();
        int o = from * ff;
        int len = (to - from) * ff;
        switch (config.activation()) {
            case SILU -> Activations.swiglu(w.gate, o, w.up, o, len);
            case GELU_TANH -> {
                if (tableGelu()) {
                    GeluTable.geglu(w.gate, o, w.up, o, len);
                } else {
                    Activations.geglu(w.gate, o, w.up, o, len);
                }
            }
        }
    }

    /** out[t] = W·x[t] (+ bias) for t &lt; n. */
    private void project(Projection p, float[] x, int n, float[] out) {
        matmul.multiply(p.weight(), x, 0, n, out, 0);
        addBias(p, n, out);
    }

    /** out[t] += the projection's bias for t &lt; n, if it has one. */
    private static void addBias(Projection p, int n, float[] out) {
        float[] bias = p.bias();
        if (bias != null) {
            int rows = p.rows();
            for (int t = 0; t < n; t++) {
                VectorOps.add(bias, 0, out, t * rows, rows);
            }
        }
    }

    /** Final norm and output projection of hidden rows [first, first+count) into out at outOff. */
    private void computeLogits(int first, int count, float[] out, int outOff) {
        int embd = config.embeddingLength();
        RmsNorm.applyRows(ws.x, first * embd, weights.outputNorm(), 0, embd, count, config.rmsNormEps(), ws.xb, 0);
        matmul.multiply(weights.output(), ws.xb, 0, count, out, outOff);
    }

    /** Scratch for up to {@code rows} tokens per chunk and {@code cacheRows} entries per KV head. */
    private final class Workspace {
        final int rows;
        final int cacheRows;
        final float[] x;
        final float[] xb;
        final float[] tmp;
        final float[] q;
        final float[] qPre;
        final float[] k;
        final float[] v;
        final float[] att;
        final float[] gate;
        final float[] up;
        /** The outputs of {@link #qkv} and {@link #gateUp}, in their order. */
        final float[][] qkvOut;

        final float[][] gateUpOut;
        final float[][][] ropeTables;
        final float[][] scores;
        final float[][] halfScratch;
        final int[] lengthBefore;
        /** The layer's keys and values read back as float, per KV head (see {@link KvCache#keyRows}). */
        final FloatRows[] keyRows;

        final FloatRows[] valueRows;
        private final float[][][] kvScratch;

        Workspace(int rows, int cacheRows) {
            this.rows = rows;
            this.cacheRows = cacheRows;
            int embd = config.embeddingLength();
            x = new float[rows * embd];
            xb = new float[rows * embd];
            tmp = new float[rows * embd];
            q = new float[rows * config.maxQueryDim()];
            qPre = new float[rows * config.maxQueryDim()];
            k = new float[rows * config.maxKeyDim()];
            v = new float[rows * config.maxValueDim()];
            att = new float[rows * config.maxAttentionOutputDim()];
            gate = new float[rows * config.feedForwardLength()];
            up = new float[rows * config.feedForwardLength()];
            qkvOut = new float[][] {q, k, v};
            gateUpOut = new float[][] {gate, up};
            ropeTables = new float[ropes.length][][];
            for (int r = 0; r < ropes.length; r++) {
                ropeTables[r] = new float[rows][ropes[r].tableSize()];
            }
            scores = new float[pool == null ? 1 : pool.threads()][2 * cacheRows]; // two heads' rows (attendPair)
            halfScratch =
                    new float[scores.length][HalfOnlineAttention.stateSize(config.maxKeyDim(), config.maxValueDim())];
            lengthBefore = new int[config.headCountKv()];
            keyRows = new FloatRows[config.headCountKv()];
            valueRows = new FloatRows[config.headCountKv()];
            kvScratch = new float[2][config.headCountKv()][];
        }

        /** Float scratch of KV head g's keys (kind 0) or values (kind 1) when they are not stored as f32. */
        float[] kvScratch(int g, int kind, int floats) {
            float[] s = kvScratch[kind][g];
            if (s == null || s.length < floats) {
                s = new float[Math.max(floats, cacheRows * Math.max(config.keyLength(), config.valueLength()))];
                kvScratch[kind][g] = s;
            }
            return s;
        }

        /** The cos/sin table of RoPE setup r at chunk row t. */
        float[] ropeTable(int r, int t) {
            return ropeTables[r][t];
        }
    }

    /**
     * Grouped-query attention of one block over the KV cache, one (token, query head) pair per
     * item. The cache holds rows in ascending position order and the chunk's own rows were just
     * appended, so token t sees the rows [start, end) of its KV head: end stops after its own row
     * (causal), start skips rows outside the sliding window.
     */
    private final class AttentionTask implements ThreadPool.RangeTask {
        private KvCache cache;
        private LayerConfig layer;
        private int tokens;
        private int firstPosition;

        void set(KvCache cache, LayerConfig layer, int tokens, int firstPosition) {
            this.cache = cache;
            this.layer = layer;
            this.tokens = tokens;
            this.firstPosition = firstPosition;
            this.halfOnline = halfCache(cache) && tokens < HalfOnlineAttention.LLAMA_TILE_QUERIES;
        }

        /**
         * An F16 cache ({@link ForwardPass#halfCache}) and a batch below llama.cpp's tile: each head
         * attends as llama.cpp's online F16 path does, one at a time.
         */
        private boolean halfOnline;

        /** Work items per token: each KV head's query heads in pairs (an odd group's last alone). */
        int itemsPerToken() {
            return layer.headCountKv() * pairsPerGroup();
        }

        private int pairsPerGroup() {
            return (layer.groupSize() + 1) / 2;
        }

        @Override
        public void run(int start, int end, int worker) {
            float[] scores = ws.scores[worker];
            int perToken = itemsPerToken();
            int pairs = pairsPerGroup();
            int groupSize = layer.groupSize();
            for (int item = start; item < end; item++) {
                int t = item / perToken;
                int g = (item % perToken) / pairs;
                int first = 2 * ((item % perToken) % pairs);
                int h = g * groupSize + first;
                if (first + 1 >= groupSize) {
                    attendOne(t, h, scores, null, worker);
                } else if (!halfOnline) {
                    attendPair(t, h, scores);
                } else {
                    attendOne(t, h, scores, null, worker);
                    attendOne(t, h + 1, scores, null, worker);
                }
            }
        }

        /**
         * Attends token t with query heads h and h+1 of one KV head: their keys and values load once
         * for both ({@link Attention#scores2}, {@link Attention#accumulate2}), and each head's output
         * is the one {@link #attendOne} gives it, bit for bit.
         */
        private void attendPair(int t, int h, float[] buf) {
            Workspace w = ws;
            LayerConfig l = layer;
            int g = h / l.groupSize();
            int dk = l.keyLength();
            int dv = l.valueLength();
            int end = w.lengthBefore[g] + t + 1;
            int begin = HalfCacheAttention.firstVisibleRow(cache, l, g, end, firstPosition + t);
            int count = end - begin;
            int qOff = t * l.queryDim() + h * dk;
            int outOff = t * l.attentionOutputDim() + h * dv;
            FloatRows keys = w.keyRows[g];
            FloatRows values = w.valueRows[g];
            Attention.scores2(
                    w.q,
                    qOff,
                    qOff + dk,
                    keys.data(),
                    keys.offset() + begin * dk,
                    count,
                    dk,
                    l.attentionScale(),
                    buf,
                    0,
                    count);
            Softmax.inPlace(buf, 0, count);
            Softmax.inPlace(buf, count, count);
            Attention.accumulate2(
                    buf, 0, count, values.data(), values.offset() + begin * dv, count, dv, w.att, outOff, outOff + dv);
        }

        /** Serial variant that also reports every probability row to the observer. */
        void runObserved(ForwardObserver observer) {
            float[] probs = ws.scores[0];
            for (int t = 0; t < tokens; t++) {
                for (int h = 0; h < layer.headCount(); h++) {
                    int visible = attendOne(t, h, probs, observer, 0);
                    observer.onAttention(layer.index(), h, firstPosition + t, probs, 0, visible);
                }
            }
        }

        /** Attends token t, head h; returns the number of rows up to its own (for the observer). */
        private int attendOne(int t, int h, float[] buf, ForwardObserver observer, int worker) {
            Workspace w = ws;
            LayerConfig l = layer;
            int il = l.index();
            int g = h / l.groupSize();
            int dk = l.keyLength();
            int dv = l.valueLength();
            int end = w.lengthBefore[g] + t + 1;
            int begin = HalfCacheAttention.firstVisibleRow(cache, l, g, end, firstPosition + t);
            int count = end - begin;
            int qOff = t * l.queryDim() + h * dk;
            int outOff = t * l.attentionOutputDim() + h * dv;
            // The observer needs probabilities indexed by row; the parallel path packs them at 0.
            int sOff = observer == null ? 0 : begin;
            if (observer != null && begin > 0) {
                Arrays.fill(buf, 0, begin, 0f);
            }
            FloatRows keys = w.keyRows[g];
            FloatRows values = w.valueRows[g];
            if (observer != null || !halfOnline) {
                Attention.scores(
                        w.q, qOff, keys.data(), keys.offset() + begin * dk, count, dk, l.attentionScale(), buf, sOff);
                Softmax.inPlace(buf, sOff, count);
            }
            if (halfOnline) {
                HalfOnlineAttention.attend(
                        w.q,
                        qOff,
                        keys.data(),
                        keys.offset() + begin * dk,
                        values.data(),
                        values.offset() + begin * dv,
                        count,
                        dk,
                        dv,
                        l.attentionScale(),
                        w.halfScratch[worker],
                        w.att,
                        outOff);
            } else {
                Attention.accumulate(buf, sOff, values.data(), values.offset() + begin * dv, count, dv, w.att, outOff);
            }
            return end;
        }
    }
}

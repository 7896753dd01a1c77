package org.jacap.kv.eviction;

import java.util.List;
import org.jacap.JacapException;
import org.jacap.kv.KvCache;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;

/**
 * Applies an {@link EvictionPolicy} to a {@link KvCache}, layer by layer: copies each layer's
 * entries to double ({@link KvHeadRows}), builds R̄ from the layer's own RoPE over the next
 * {@code futurePositions} positions, scores, then compacts the cache ({@link KvCache#retain}) and
 * the layer's statistics ({@link QueryStatistics#retainEntries}) per KV head. Kept entries keep
 * their original positions and keys; nothing is re-rotated.
 *
 * <p>Sliding-window layers (Gemma 3 local layers) are never scored: budgets and ratios apply
 * where attention is global. The cache already bounds them (the forward pass drops what falls
 * out of the window before each chunk); here an entry no future query can see (position
 * &lt; next − window + 1) is dropped as well, so that a compression leaves exactly the live window.
 *
 * <p>Time spent here (snapshot copy, scoring, compaction) is summed in {@link #scoringNanos()},
 * apart from the forward pass. Not thread-safe: one compressor per inference state.
 *
 * <p>One-call use after a prefill (evaluation harnesses):
 * <pre>{@code
 * InferenceState st = model.newState(ctx);
 * KvCompressor.observe(model, st, policy.statistics());      // before the prompt
 * model.forward(st, context, 0, context.length, false);
 * CompressionResult r = KvCompressor.compress(model, st, policy, Budget.ratio(0.75));
 * st.setObserver(null);                                      // teacher-force the continuation at full speed
 * }</pre>
 * For several policies from one prefill: observe with the union of their specs
 * ({@link StatisticsSpec#union}), then per policy {@code compress(model, st.copy(), observer.copy(), ...)}.
 */
public final class KvCompressor {
    private final List<LayerGeometry> layers;
    private final EvictionPolicy policy;
    private final int futurePositions;
    /** The first layer with the same RoPE as layer l: R̄ is computed once per group and event. */
    private final int[] ropeGroup;

    private final AveragedRotation[] rotation;
    private final long[] rotationAt;
    private final QueryStatistics[] noStatistics;
    private double[][] keyBuffer = new double[0][];
    private double[][] valueBuffer = new double[0][];
    private long scoringNanos;
    private long layersScored;
    private long entriesEvicted;

    public KvCompressor(List<LayerGeometry> layers, EvictionPolicy policy, int futurePositions) {
        if (layers.isEmpty()) {
            throw new JacapException("no layers to compress");
        }
        if (futurePositions < 1) {
            throw new JacapException("future positions must be >= 1, got " + futurePositions);
        }
        this.layers = List.copyOf(layers);
        this.policy = policy;
        this.futurePositions = futurePositions;
        this.ropeGroup = new int[layers.size()];
        for (int l = 0; l < ropeGroup.length; l++) {
            int g = l;
            for (int e = 0; e < l; e++) {
                if (layers.get(e).sameRope(layers.get(l))) {
                    g = ropeGroup[e];
                    break;
                }
            }
            ropeGroup[l] = g;
        }
        this.rotation = new AveragedRotation[layers.size()];
        this.rotationAt = new long[layers.size()];
        this.noStatistics = new QueryStatistics[layers.size()];
    }

    /** Compressor for every layer of {@code model}, R̄ over the default 512 future positions. */
    public static KvCompressor forModel(Model model, EvictionPolicy policy) {
        return new KvCompressor(LayerGeometry.of(model), policy, AveragedRotation.DEFAULT_FUTURE_POSITIONS);
    }

    /**
     * Installs on {@code state} an observer that gathers what {@code spec} needs (e.g.
     * {@code policy.statistics()}) during the following forward passes; call it before the prompt.
     */
    public static EvictionObserver observe(Model model, InferenceState state, StatisticsSpec spec) {
        EvictionObserver observer = new EvictionObserver(shapes(model), spec, 0);
        state.setObserver(observer);
        return observer;
    }

    /**
     * Compresses every layer of {@code state}'s cache to {@code budget} with {@code policy}, using
     * the statistics of the {@link EvictionObserver} installed on the state (none needed for
     * knorm, keydiff, random, streaming). R̄ starts at {@code state.position()}.
     */
    public static CompressionResult compress(Model model, InferenceState state, EvictionPolicy policy, Budget budget) {
        EvictionObserver observer = state.observer() instanceof EvictionObserver o ? o : null;
        return compress(model, state, observer, policy, budget);
    }

    /** The same with an explicit observer (e.g. a copy, when several policies share one prefill). */
    public static CompressionResult compress(
            Model model, InferenceState state, EvictionObserver observer, EvictionPolicy policy, Budget budget) {
        if (observer != null && !observer.spec().covers(policy.statistics())) {
            throw new JacapException("the observer gathered " + observer.spec() + ", but policy '"
                    + policy.scorer().name() + "' needs " + policy.statistics());
        }
        return forModel(model, policy).compress(state.kvCache(), observer, state.position(), budget);
    }

    static List<AttentionShape> shapes(Model model) {
        return LayerGeometry.of(model).stream().map(LayerGeometry::shape).toList();
    }

    public EvictionPolicy policy() {
        return policy;
    }

    public List<LayerGeometry> layers() {
        return layers;
    }

    /** Wall time spent in eviction events so far (snapshot, scoring, compaction), in nanoseconds. */
    public long scoringNanos() {
        return scoringNanos;
    }

    /** Layers scored so far (one per layer per event that had something to evict). */
    public long layersScored() {
        return layersScored;
    }

    /** Cache entries removed so far, over all layers and heads. */
    public long entriesEvicted() {
        return entriesEvicted;
    }

    /**
     * Compresses every layer of {@code cache} to {@code budget}.
     *
     * @param observer     statistics gathered during the forward pass; may be null only when the
     *                     policy needs none
     * @param nextPosition the position the next token will get (R̄ starts there)
     */
    public CompressionResult compress(KvCache cache, EvictionObserver observer, long nextPosition, Budget budget) {
        long t0 = System.nanoTime();
        long before = cache.entries();
        long scoring0 = scoringNanos;
        for (int l = 0; l < layers.size(); l++) {
            compressLayer(cache, l, statistics(observer, l), nextPosition, budget);
        }
        long after = cache.entries();
        return new CompressionResult(
                before,
                after,
                cache.bytesInUse(),
                cache.bytesAllocated(),
                scoringNanos - scoring0,
                System.nanoTime() - t0);
    }

    /**
     * Scores every layer once, for {@link #retain} to cut at any number of budgets (evaluation:
     * one scoring per policy, reused for every ratio). Drops the dead sliding-window entries from
     * {@code cache} first, so the scores index its entries as they are after this call; the cache
     * is otherwise untouched. A budget-independent scorer ranks entries the same whatever the
     * budget, so {@code rank} then {@code retain} keeps exactly what {@link #compress} keeps.
     */
    public Ranking rank(KvCache cache, EvictionObserver observer, long nextPosition) {
        if (observer != null && !observer.spec().covers(policy.statistics())) {
            throw new JacapException("the observer gathered " + observer.spec() + ", but policy '"
                    + policy.scorer().name() + "' needs " + policy.statistics());
        }
        long t0 = System.nanoTime();
        double[][][] scores = new double[layers.size()][][];
        QueryStatistics[] stats = new QueryStatistics[layers.size()];
        for (int l = 0; l < layers.size(); l++) {
            LayerGeometry geometry = layers.get(l);
            AttentionShape shape = geometry.shape();
            checkCache(cache, shape);
            stats[l] = statistics(observer, l);
            if (stats[l] == null) {
                stats[l] = emptyStatistics(l);
            }
            dropDeadEntries(cache, l, geometry, stats[l], nextPosition);
            if (policy.evicts() && !geometry.isSliding()) { // a window layer only loses its dead entries
                KvHeadRows[] heads = snapshot(cache, l, shape);
                scores[l] = policy.scorer()
                        .score(new LayerSnapshot(
                                l,
                                layers.size(),
                                shape,
                                heads,
                                futureRotation(l, nextPosition),
                                stats[l],
                                geometry.outputEnergyShared()));
                layersScored++;
            }
        }
        long spent = System.nanoTime() - t0;
        scoringNanos += spent;
        return new Ranking(scores, cache.entries(), spent);
    }

    /**
     * Keeps, in every layer of {@code cache} (as {@link #rank} left it, or a copy), the entries the
     * policy's allocator picks from the ranking for {@code budget}. Statistics are not compacted:
     * the evaluation teacher-forces after this without an observer.
     */
    public CompressionResult retain(KvCache cache, Ranking ranking, Budget budget) {
        long t0 = System.nanoTime();
        long before = cache.entries();
        if (before != ranking.entries()) {
            throw new JacapException("the cache holds " + before + " entries, the ranking scored " + ranking.entries());
        }
        for (int l = 0; l < layers.size(); l++) {
            double[][] s = ranking.scores()[l];
            if (s == null) {
                continue;
            }
            int[][] kept = policy.allocator().select(copyOf(s), budget, l, layers.size());
            for (int g = 0; g < kept.length; g++) {
                entriesEvicted += cache.length(l, g) - kept[g].length;
                cache.retain(l, g, kept[g]);
            }
        }
        long spent = System.nanoTime() - t0;
        return new CompressionResult(
                before, cache.entries(), cache.bytesInUse(), cache.bytesAllocated(), ranking.nanos() + spent, spent);
    }

    /** Per layer, per KV head, per entry scores of one {@link #rank} call; {@code entries} over all heads. */
    public record Ranking(double[][][] scores, long entries, long nanos) {}

    private static double[][] copyOf(double[][] s) {
        double[][] c = new double[s.length][];
        for (int g = 0; g < s.length; g++) {
            c[g] = s[g].clone();
        }
        return c;
    }

    /**
     * Compresses one layer to {@code budget}: a sliding-window layer only loses its dead entries; a
     * global one is scored and keeps the policy's choice. Returns the number of entries removed over the layer's heads.
     */
    public int compressLayer(KvCache cache, int layer, QueryStatistics stats, long nextPosition, Budget budget) {
        long t0 = System.nanoTime();
        LayerGeometry geometry = layers.get(layer);
        AttentionShape shape = geometry.shape();
        checkCache(cache, shape);
        if (stats == null) {
            stats = emptyStatistics(layer);
        }
        int hkv = shape.kvHeads();
        int removed = dropDeadEntries(cache, layer, geometry, stats, nextPosition);
        boolean evicts = false;
        for (int g = 0; g < hkv && !evicts && !geometry.isSliding(); g++) {
            int n = cache.length(layer, g);
            evicts = policy.evicts() && budget.keptCount(n) < n;
        }
        if (evicts) {
            KvHeadRows[] heads = snapshot(cache, layer, shape);
            AveragedRotation rbar = futureRotation(layer, nextPosition);
            KeptEntries kept = policy.select(
                    new LayerSnapshot(layer, layers.size(), shape, heads, rbar, stats, geometry.outputEnergyShared()),
                    budget);
            for (int g = 0; g < hkv; g++) {
                int[] k = kept.kept(g);
                removed += cache.length(layer, g) - k.length;
                cache.retain(layer, g, k);
                stats.retainEntries(g, k);
            }
            layersScored++;
        }
        entriesEvicted += removed;
        scoringNanos += System.nanoTime() - t0;
        return removed;
    }

    /** Entries of a sliding-window layer that no query at nextPosition or later can attend to. */
    private static int dropDeadEntries(
            KvCache cache, int layer, LayerGeometry geometry, QueryStatistics stats, long nextPosition) {
        if (!geometry.isSliding()) {
            return 0;
        }
        long firstLive = geometry.firstLivePosition(nextPosition);
        int removed = 0;
        for (int g = 0; g < geometry.shape().kvHeads(); g++) {
            int first = cache.dropBefore(layer, g, (int) Math.min(Integer.MAX_VALUE, firstLive));
            if (first == 0) {
                continue;
            }
            int[] keep = new int[cache.length(layer, g)];
            for (int j = 0; j < keep.length; j++) {
                keep[j] = first + j;
            }
            stats.retainEntries(g, keep);
            removed += first;
        }
        return removed;
    }

    /** The layer's entries in double, as stored (f16/q8_0 read back); buffers are reused across layers and events. */
    private KvHeadRows[] snapshot(KvCache cache, int layer, AttentionShape shape) {
        int hkv = shape.kvHeads();
        int d = shape.headDim();
        if (keyBuffer.length < hkv) {
            keyBuffer = java.util.Arrays.copyOf(keyBuffer, hkv);
            valueBuffer = java.util.Arrays.copyOf(valueBuffer, hkv);
        }
        KvHeadRows[] heads = new KvHeadRows[hkv];
        for (int g = 0; g < hkv; g++) {
            int n = cache.length(layer, g);
            int size = n * d;
            if (keyBuffer[g] == null || keyBuffer[g].length < size) {
                keyBuffer[g] = new double[Math.max(size, 16 * d)];
                valueBuffer[g] = new double[Math.max(size, 16 * d)];
            }
            double[] k = keyBuffer[g];
            double[] v = valueBuffer[g];
            float[] ks = cache.keys(layer, g);
            float[] vs = cache.values(layer, g);
            for (int i = 0; i < size; i++) {
                k[i] = ks[i];
                v[i] = vs[i];
            }
            heads[g] = new KvHeadRows(n, d, k, v, cache.positions(layer, g));
        }
        return heads;
    }

    private AveragedRotation futureRotation(int layer, long nextPosition) {
        int g = ropeGroup[layer];
        if (rotation[g] == null || rotationAt[g] != nextPosition) {
            rotation[g] = layers.get(g).futureRotation(nextPosition, futurePositions);
            rotationAt[g] = nextPosition;
        }
        return rotation[g];
    }

    private QueryStatistics statistics(EvictionObserver observer, int layer) {
        if (observer == null) {
            return null;
        }
        if (observer.layers() != layers.size()) {
            throw new JacapException(
                    "the observer watches " + observer.layers() + " layers, the model has " + layers.size());
        }
        return observer.statistics(layer);
    }

    private QueryStatistics emptyStatistics(int layer) {
        if (policy.evicts() && !StatisticsSpec.NOTHING.covers(policy.statistics())) {
            throw new JacapException("policy '" + policy.scorer().name() + "' needs query statistics gathered during"
                    + " the forward pass; install an eviction observer before evaluating the prompt");
        }
        if (noStatistics[layer] == null) {
            noStatistics[layer] = new QueryStatistics(layers.get(layer).shape(), StatisticsSpec.NOTHING);
        }
        return noStatistics[layer];
    }

    private void checkCache(KvCache cache, AttentionShape shape) {
        if (cache.layers() != layers.size()
                || cache.kvHeads() != shape.kvHeads()
                || cache.keyDim() != shape.headDim()) {
            throw new JacapException("KV cache of " + cache.layers() + " layers x " + cache.kvHeads() + " heads x "
                    + cache.keyDim() + " does not match the model's " + layers.size() + " x " + shape.kvHeads()
                    + " x " + shape.headDim());
        }
        if (cache.valueDim() != cache.keyDim()) {
            throw new JacapException("KV eviction needs equal key and value head sizes, got " + cache.keyDim() + " and "
                    + cache.valueDim());
        }
    }
}

package org.jacap.bench.eval;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.jacap.JacapException;
import org.jacap.bench.progress.Progress;
import org.jacap.kv.KvCache;
import org.jacap.kv.KvCacheTypes;
import org.jacap.kv.eviction.Budget;
import org.jacap.kv.eviction.BudgetAllocator;
import org.jacap.kv.eviction.CompressionResult;
import org.jacap.kv.eviction.EvictionObserver;
import org.jacap.kv.eviction.FutureAttentionOracle.FutureAttentionMass;
import org.jacap.kv.eviction.KvCompressor;
import org.jacap.kv.eviction.QueryStatistic;
import org.jacap.kv.eviction.QueryStatistics;
import org.jacap.kv.eviction.StatisticsSpec;
import org.jacap.model.BlockPrefix;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;

/**
 * Eviction fidelity, docs/eviction-spec.md §6. Per document (a window of n context tokens C, then the
 * continuation T):
 * <ol>
 *   <li>prefill C once; every policy's statistics watch this one prefill;</li>
 *   <li>reference: a copy of that state teacher-forces T on the full cache, giving p_t and the
 *       attention T's queries pay to C (the oracle's scores);</li>
 *   <li>per policy × ratio: another copy is compressed once ({@link KvCompressor}, uniform budget:
 *       the same kept count for every layer and KV head), then teacher-forces T, whose own
 *       entries are appended uncompressed, giving q_t.</li>
 * </ol>
 * Track A compares p and q (KL, top-1, ΔNLL). Track B, the retrieval probe, writes a random span
 * S into C at each depth and, after compression, feeds S: does the model still complete S from
 * its first tokens? Intervals come from one paired bootstrap over documents.
 *
 * <p>With a KV storage other than f32 ({@code -ctk/-ctv}), the reference stays f32 and the
 * context is prefilled a second time into that storage: its uncompressed run is a row of its own
 * (ratio 0, the storage alone) and the policies compress copies of the stored cache (the storage
 * with eviction), their statistics reading the stored values.
 */
public final class FidelityEvaluation {
    private static final StatisticsSpec ATTENTION = StatisticsSpec.of(0, 0, QueryStatistic.ATTENTION_RECEIVED);

    /**
     * @param contextTokens      n: tokens prefilled and compressed (BOS included)
     * @param continuationTokens m: tokens teacher-forced after compression
     * @param probeDepths        where the probe span starts, as a fraction of the context; empty: no probe
     * @param probeSpan          length of the probe span (32 in the spec)
     * @param probePrompt        span tokens fed before scoring starts (8 in the spec)
     */
    public record Settings(
            int contextTokens,
            int continuationTokens,
            List<Double> ratios,
            Protection protection,
            List<Double> probeDepths,
            int probeSpan,
            int probePrompt,
            int bootstrapResamples,
            long seed) {
        public Settings {
            ratios = List.copyOf(ratios);
            probeDepths = List.copyOf(probeDepths);
            if (contextTokens < 2 || continuationTokens < 1) {
                throw new IllegalArgumentException(
                        "the context needs at least 2 tokens and the continuation at least 1");
            }
            if (ratios.isEmpty()) {
                throw new IllegalArgumentException("no compression ratios given");
            }
            for (double r : ratios) {
                if (!(r >= 0 && r < 1)) {
                    throw new IllegalArgumentException("compression ratios must be in [0, 1), got " + r);
                }
            }
            for (double d : probeDepths) {
                if (!(d >= 0 && d <= 1)) {
                    throw new IllegalArgumentException("probe depths must be in [0, 1], got " + d);
                }
            }
            if (!probeDepths.isEmpty()
                    && (probePrompt < 1 || probeSpan < probePrompt + 1 || probeSpan + 1 > contextTokens)) {
                throw new IllegalArgumentException("the probe needs 1 <= prompt < span < context, got prompt "
                        + probePrompt + ", span " + probeSpan + ", context " + contextTokens);
            }
            if (bootstrapResamples < 1) {
                throw new IllegalArgumentException("the bootstrap needs at least one resample");
            }
        }

        /** Tokens one document window holds: C, T, and the target after T's last token. */
        public int windowLength() {
            return contextTokens + continuationTokens + 1;
        }

        /** Entries each (layer, KV head) keeps at ratio r: {@code (int)(n(1 − r))}. */
        public int kept(double ratio) {
            return Budget.ratio(ratio).keptCount(contextTokens);
        }
    }

    private final Model model;
    private final Settings settings;
    private final List<EvalPolicy> policies;
    private final int vocab;
    /** Policies whose statistics one observer can gather together; each policy points at its group. */
    private final List<StatisticsSpec> groups = new ArrayList<>();

    private final int[] groupOf;
    /** How the evaluated caches store keys and values; the reference is always f32. */
    private final KvCacheTypes storage;

    public FidelityEvaluation(Model model, Settings settings, List<EvalPolicy> policies) {
        this(model, settings, policies, KvCacheTypes.F32);
    }

    /** The same with the compressed caches (and a row of the uncompressed one) in {@code storage}. */
    public FidelityEvaluation(Model model, Settings settings, List<EvalPolicy> policies, KvCacheTypes storage) {
        this.model = model;
        this.storage = storage;
        this.settings = settings;
        this.policies = List.copyOf(policies);
        this.vocab = model.config().vocabSize();
        int needed = settings.contextTokens() + Math.max(settings.continuationTokens() + 1, settings.probeSpan());
        int max = model.config().contextLength();
        if (max > 0 && needed > max) {
            throw new JacapException("context " + settings.contextTokens() + " + continuation "
                    + settings.continuationTokens() + " needs " + needed + " positions; the model's context is " + max);
        }
        groupOf = new int[this.policies.size()];
        for (int i = 0; i < groupOf.length; i++) {
            groupOf[i] = group(this.policies.get(i).statistics());
        }
    }

    /** Joins the first group whose statistics can be shared (same first moment position), else opens one. */
    private int group(StatisticsSpec spec) {
        for (int g = 0; g < groups.size(); g++) {
            try {
                groups.set(g, groups.get(g).union(spec));
                return g;
            } catch (JacapException incompatible) {
                // different sink counts for the moments: gather them separately
            }
        }
        groups.add(spec);
        return groups.size() - 1;
    }

    /** Progress units {@link #run} reports for {@code documents} documents. */
    public long workUnits(int documents) {
        return workUnits(documents, false);
    }

    /** The same with one passkey trial per document or not. */
    public long workUnits(int documents, boolean passkey) {
        long cells = (long) policies.size() * settings.ratios().size() + (stored() ? 1 : 0);
        return documents * (1 + cells) * (1 + settings.probeDepths().size() + (passkey ? 1 : 0));
    }

    private boolean stored() {
        return !storage.equals(KvCacheTypes.F32);
    }

    /** The storage row's name, as the run summary names the storage: {@code f16 cache}, {@code k=q8_0 v=f16 cache}. */
    public static String storageRow(KvCacheTypes types) {
        return types.describe() + " cache";
    }

    /**
     * Evaluates every window ({@link Settings#windowLength()} tokens each, starting at BOS).
     *
     * @param description first line of the report (model, documents, settings)
     */
    public EvalReport run(List<int[]> windows, String description, Progress progress) {
        return run(windows, List.of(), description, progress);
    }

    /**
     * The same, with the passkey task: one trial per window (empty: no passkey), each with a context
     * of {@link Settings#contextTokens()} tokens.
     */
    public EvalReport run(List<int[]> windows, List<Passkey.Trial> passkeys, String description, Progress progress) {
        if (!passkeys.isEmpty() && passkeys.size() != windows.size()) {
            throw new IllegalArgumentException(
                    passkeys.size() + " passkey trials for " + windows.size() + " windows; give one per window");
        }
        for (Passkey.Trial t : passkeys) {
            if (t.context() != settings.contextTokens()) {
                throw new IllegalArgumentException(
                        "passkey context of " + t.context() + " tokens, expected " + settings.contextTokens());
            }
        }
        if (windows.isEmpty()) {
            throw new JacapException("no evaluation documents: the text is shorter than one window of "
                    + settings.windowLength() + " tokens");
        }
        for (int[] w : windows) {
            if (w.length != settings.windowLength()) {
                throw new IllegalArgumentException(
                        "window of " + w.length + " tokens, expected " + settings.windowLength());
            }
        }
        int[] probeVocabulary = settings.probeDepths().isEmpty() ? null : probeVocabulary(windows);
        CellAccumulator full = new CellAccumulator("full", 0);
        CellAccumulator storageCell = stored() ? new CellAccumulator(storageRow(storage), 0) : null;
        Map<String, CellAccumulator> cells = new LinkedHashMap<>();
        for (EvalPolicy p : policies) {
            for (double r : settings.ratios()) {
                cells.put(key(p.name(), r), new CellAccumulator(p.name(), r));
            }
        }
        long total = workUnits(windows.size(), !passkeys.isEmpty());
        long[] done = {0};
        double fullNll = 0;
        for (int d = 0; d < windows.size(); d++) {
            String what = "document " + (d + 1) + "/" + windows.size();
            progress.update(done[0], total, what);
            DocumentRun fidelity =
                    runDocument(windows.get(d), settings.continuationTokens(), 0, done, total, what, progress);
            List<DocumentRun> probes = new ArrayList<>();
            for (int k = 0; k < settings.probeDepths().size(); k++) {
                int[] probeWindow = probeWindow(windows.get(d), probeVocabulary, d, k);
                // input S[prompt−1] predicts S[prompt], the first scored token
                probes.add(runDocument(
                        probeWindow,
                        settings.probeSpan() - 1,
                        settings.probePrompt() - 1,
                        done,
                        total,
                        what + " (probe)",
                        progress));
            }
            DocumentRun passkey = null;
            Passkey.Trial trial = passkeys.isEmpty() ? null : passkeys.get(d);
            if (trial != null) {
                int[] t = trial.tokens();
                passkey = runDocument(
                        t,
                        t.length - trial.context() - 1,
                        trial.answerFrom(),
                        done,
                        total,
                        what + " (passkey)",
                        progress);
            }
            fullNll += fidelity.full().meanNll();
            full.add(
                    fidelity.full().fidelity(),
                    probeOf(probes, FULL),
                    passkeyOf(passkey, FULL),
                    settings.contextTokens(),
                    0);
            if (storageCell != null) {
                storageCell.add(
                        fidelity.storage().fidelity(),
                        probeOf(probes, STORAGE),
                        passkeyOf(passkey, STORAGE),
                        settings.contextTokens(),
                        0);
            }
            int cell = 0;
            for (EvalPolicy p : policies) {
                for (double r : settings.ratios()) {
                    Outcome o = fidelity.outcomes().get(cell);
                    cells.get(key(p.name(), r))
                            .add(
                                    o.fidelity(),
                                    probeOf(probes, cell),
                                    passkeyOf(passkey, cell),
                                    settings.kept(r),
                                    o.scoringNanos());
                    cell++;
                }
            }
        }
        progress.update(total, total, "bootstrap");
        PairedBootstrap bootstrap = new PairedBootstrap(windows.size(), settings.bootstrapResamples(), settings.seed());
        return EvalReport.summarize(
                description, fullNll / windows.size(), bootstrap, full, storageCell, cells.values());
    }

    /** One teacher-forced run scored against the reference and against the true tokens. */
    private record Outcome(
            DocumentFidelity fidelity,
            boolean[] top1Hits,
            double[] targetLogProbs,
            double meanNll,
            long scoringNanos) {}

    /** The three kinds of run of a document: the f32 full cache, the stored full cache (or null), the cells. */
    private record DocumentRun(Outcome full, Outcome storage, List<Outcome> outcomes) {
        /** {@link #FULL}, {@link #STORAGE} or a cell index. */
        Outcome get(int cell) {
            return cell == FULL ? full : cell == STORAGE ? storage : outcomes.get(cell);
        }
    }

    private static final int FULL = -1;
    private static final int STORAGE = -2;

    /**
     * Prefills {@code window[0..n)}, then teacher-forces the next {@code forced} tokens on the full
     * cache and on every compressed copy; the targets are the tokens that follow each input. Only the
     * inputs from {@code scoredFrom} on are scored (the retrieval tasks score their answers): the
     * others skip the output product.
     */
    private DocumentRun runDocument(
            int[] window, int forced, int scoredFrom, long[] done, long total, String what, Progress progress) {
        int n = settings.contextTokens();
        InferenceState base = model.newState(window.length);
        // the state the policies compress: the f32 prefill itself, or a second prefill into the storage
        InferenceState evaluated = stored() ? model.newState(window.length, storage) : base;
        if (stored()) {
            model.forward(base, window, 0, n, false);
        }
        List<EvictionObserver> observers = new ArrayList<>();
        for (StatisticsSpec spec : groups) {
            observers.add(spec.needs().isEmpty() ? null : KvCompressor.observe(model, evaluated, spec));
        }
        List<EvictionObserver> active =
                observers.stream().filter(o -> o != null).toList();
        evaluated.setObserver(
                active.isEmpty() ? null : active.size() == 1 ? active.getFirst() : new FanOutObserver(active));
        model.forward(evaluated, window, 0, n, false);
        evaluated.setObserver(null);

        InferenceState reference = base.copy();
        EvictionObserver attention = KvCompressor.observe(model, reference, ATTENTION);
        float[] p = model.forwardRows(reference, window, n, forced, scoredFrom);
        reference.setObserver(null);
        QueryStatistics[] perLayer = new QueryStatistics[attention.layers()];
        for (int l = 0; l < perLayer.length; l++) {
            perLayer[l] = attention.statistics(l);
        }
        FutureAttentionMass mass = FutureAttentionMass.fromStatistics(perLayer, n);
        TokenComparison.Reference[] refs = references(p, forced - scoredFrom);
        Outcome full = compare(refs, p, window, n + scoredFrom, 0);
        progress.update(++done[0], total, what);
        Outcome storageRun = null;
        if (stored()) {
            float[] q = model.forwardRows(evaluated.copy(), window, n, forced, scoredFrom);
            storageRun = compare(refs, q, window, n + scoredFrom, 0);
            progress.update(++done[0], total, what);
        }

        List<Outcome> outcomes = new ArrayList<>();
        // the blocks before the first global one are never compressed: run them once for every cell
        int shared = forced <= model.maxChunk() ? evaluated.kvCache().leadingWindowedLayers() : 0;
        BlockPrefix prefix = null;
        for (int i = 0; i < policies.size(); i++) {
            EvalPolicy policy = policies.get(i);
            EvictionObserver observer = observers.get(groupOf[i]);
            // score once per policy; every ratio cuts the same ranking (what compress() would keep at each)
            InferenceState prepared = evaluated.copy();
            KvCompressor compressor = KvCompressor.forModel(model, policy.forDocument(mass, settings.protection()));
            KvCompressor.Ranking ranking =
                    compressor.rank(prepared.kvCache(), observer == null ? null : observer.copy(), prepared.position());
            if (prefix == null && shared > 0) {
                // from a ranked copy: ranking drops the windowed blocks' dead rows, as in every cell
                prefix = model.forwardPrefix(prepared, window, n, forced, shared);
            }
            for (double r : settings.ratios()) {
                InferenceState s = prepared.copy();
                CompressionResult result = compressor.retain(s.kvCache(), ranking, Budget.ratio(r));
                checkBudget(s.kvCache(), settings.kept(r), compressor.policy().allocator(), policy.name());
                float[] q = prefix == null
                        ? model.forwardRows(s, window, n, forced, scoredFrom)
                        : model.forwardFrom(s, prefix, scoredFrom);
                outcomes.add(compare(refs, q, window, n + scoredFrom, result.scoringNanos()));
                progress.update(++done[0], total, what);
            }
        }
        return new DocumentRun(full, storageRun, outcomes);
    }

    /** The full-cache distributions of the {@code scored} teacher-forced positions, prepared once per run. */
    private TokenComparison.Reference[] references(float[] p, int scored) {
        TokenComparison comparison = new TokenComparison(vocab);
        TokenComparison.Reference[] refs = new TokenComparison.Reference[scored];
        model.parallelFor(scored, (from, to, worker) -> {
            for (int j = from; j < to; j++) {
                refs[j] = comparison.reference(p, j * vocab);
            }
        });
        return refs;
    }

    /**
     * Scores one run's logit rows against the references; row j is the input at window position
     * {@code first + j}, whose target is the token after it.
     */
    private Outcome compare(TokenComparison.Reference[] p, float[] q, int[] window, int first, long scoringNanos) {
        int scored = p.length;
        TokenComparison comparison = new TokenComparison(vocab);
        TokenComparison.Score[] scores = new TokenComparison.Score[scored];
        // positions are independent: each thread fills its own slots, the sums below run in order
        model.parallelFor(scored, (from, to, worker) -> {
            for (int j = from; j < to; j++) {
                scores[j] = comparison.compare(p[j], q, j * vocab, window[first + j + 1]);
            }
        });
        boolean[] hits = new boolean[scored];
        double[] logProbs = new double[scored];
        double nll = 0;
        for (int j = 0; j < scored; j++) {
            int target = window[first + j + 1];
            hits[j] = scores[j].compressedTop1() == target;
            logProbs[j] = -scores[j].nllCompressed();
            nll += scores[j].nllFull();
        }
        return new Outcome(DocumentFidelity.of(List.of(scores)), hits, logProbs, nll / scored, scoringNanos);
    }

    /**
     * Every policy is promised the same budget: hold each one to it, per (layer, KV head), or per
     * layer when its KV heads share the layer's budget (AdaKV-style allocators). Sliding-window
     * layers are not budgeted (they keep their live window whatever the policy, docs/kv-cache.md),
     * so only global layers are checked.
     */
    static void checkBudget(KvCache cache, int kept, BudgetAllocator allocator, String policy) {
        int perHead = allocator.maxKeptPerHead(kept, cache.kvHeads()); // kept, or the layer's total under AdaKV
        for (int l = 0; l < cache.layers(); l++) {
            if (cache.isWindowed(l)) {
                continue;
            }
            long layerTotal = 0;
            for (int h = 0; h < cache.kvHeads(); h++) {
                layerTotal += cache.length(l, h);
                if (cache.length(l, h) > perHead) {
                    throw new IllegalStateException(policy + " kept " + cache.length(l, h) + " entries in layer " + l
                            + ", KV head " + h + "; the budget is " + perHead);
                }
            }
            if (layerTotal > (long) kept * cache.kvHeads()) {
                throw new IllegalStateException(policy + " kept " + layerTotal + " entries in layer " + l
                        + "; the budget is " + kept + " per KV head, " + (long) kept * cache.kvHeads() + " in all");
            }
        }
    }

    /** The probe score of one cell ({@link #FULL}, {@link #STORAGE} or a cell), averaged over depths; null without a probe. */
    private ProbeScore probeOf(List<DocumentRun> probes, int cell) {
        if (probes.isEmpty()) {
            return null;
        }
        List<ProbeScore> perDepth = new ArrayList<>();
        for (DocumentRun run : probes) {
            Outcome o = run.get(cell); // scored from the first span token after the prompt
            perDepth.add(ProbeScore.of(o.top1Hits(), o.targetLogProbs()));
        }
        return ProbeScore.mean(perDepth);
    }

    /** The passkey answer's score in one cell (as {@link #probeOf}); null without the task. */
    private static ProbeScore passkeyOf(DocumentRun run, int cell) {
        if (run == null) {
            return null;
        }
        Outcome o = run.get(cell); // scored from the input whose target is the first answer token
        return ProbeScore.of(o.top1Hits(), o.targetLogProbs());
    }

    /**
     * The document's context with a random span S written at the depth, followed by S itself (the
     * probe's teacher-forced input). Span tokens are drawn from ids occurring in the documents, so
     * they are ordinary text tokens of the vocabulary.
     */
    int[] probeWindow(int[] window, int[] probeVocabulary, int document, int depthIndex) {
        int n = settings.contextTokens();
        int span = settings.probeSpan();
        SplittableRandom random = new SplittableRandom(settings.seed() * 1_000_003L + document * 101L + depthIndex);
        int[] s = new int[span];
        for (int i = 0; i < span; i++) {
            s[i] = probeVocabulary[random.nextInt(probeVocabulary.length)];
        }
        int start = 1 + (int) Math.round(settings.probeDepths().get(depthIndex) * (n - 1 - span));
        int[] w = new int[n + span];
        System.arraycopy(window, 0, w, 0, n);
        System.arraycopy(s, 0, w, start, span);
        System.arraycopy(s, 0, w, n, span);
        return w;
    }

    /** Distinct token ids of the windows, without the id every window starts with (BOS). */
    static int[] probeVocabulary(List<int[]> windows) {
        BitSet seen = new BitSet();
        for (int[] w : windows) {
            for (int i = 1; i < w.length; i++) {
                seen.set(w[i]);
            }
        }
        seen.clear(windows.getFirst()[0]);
        if (seen.isEmpty()) {
            throw new JacapException("the documents hold no tokens to build a probe span from");
        }
        return seen.stream().toArray();
    }

    private static String key(String policy, double ratio) {
        return policy + "@" + ratio;
    }
}

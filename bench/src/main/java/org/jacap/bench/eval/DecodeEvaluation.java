package org.jacap.bench.eval;

import java.util.ArrayList;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.bench.progress.Progress;
import org.jacap.kv.KvCacheTypes;
import org.jacap.kv.eviction.EvictionPolicy;
import org.jacap.kv.eviction.EvictionSchedule;
import org.jacap.kv.eviction.EvictionSettings;
import org.jacap.model.InferenceState;
import org.jacap.model.Model;

/**
 * Budgeted decoding through a long teacher-forced continuation (eval's decode mode): per document,
 * a prefill of P tokens and a continuation of T tokens run once on the full cache and once per
 * policy under a fixed budget of B entries per (layer, KV head), through the engine's own
 * {@link EvictionSchedule} (the prefill is cut to B as it goes, then every {@code slack} tokens
 * the cache is re-scored and cut back to B). All runs advance in lockstep, one chunk at a time,
 * so only one chunk of reference logits is ever held. Track A compares every continuation token.
 */
public final class DecodeEvaluation {
    /** Tokens teacher-forced per lockstep chunk (the reference's logits of one chunk are held). */
    static final int CHUNK = 64;

    /**
     * @param prefillTokens      P, BOS included
     * @param continuationTokens T
     * @param budget             B entries per (layer, KV head)
     */
    public record Settings(int prefillTokens, int continuationTokens, int budget, int bootstrapResamples, long seed) {
        public Settings {
            if (prefillTokens < 2 || continuationTokens < 1) {
                throw new IllegalArgumentException(
                        "decode mode needs a prefill of >= 2 and a continuation of >= 1 tokens");
            }
            if (budget < 1) {
                throw new IllegalArgumentException("decode mode needs a budget of >= 1 entries, got " + budget);
            }
            if (bootstrapResamples < 1) {
                throw new IllegalArgumentException("the bootstrap needs at least one resample");
            }
        }

        public int windowLength() {
            return prefillTokens + continuationTokens + 1;
        }

        /** The fraction of the final cache (P + T entries) that the budget removes. */
        public double ratio() {
            return 1.0 - (double) budget / (prefillTokens + continuationTokens);
        }
    }

    private final Model model;
    private final Settings settings;
    private final List<EvalPolicy> policies;
    /** How the decoding caches store keys and values; the reference is always f32. */
    private final KvCacheTypes storage;

    public DecodeEvaluation(Model model, Settings settings, List<EvalPolicy> policies) {
        this(model, settings, policies, KvCacheTypes.F32);
    }

    /**
     * The same with every policy's cache in {@code storage}, and (when it is not f32) a row of the
     * uncompressed cache in that storage.
     */
    public DecodeEvaluation(Model model, Settings settings, List<EvalPolicy> policies, KvCacheTypes storage) {
        for (EvalPolicy p : policies) {
            if (p.name().equals(EvalPolicy.ORACLE)) {
                throw new JacapException("the oracle needs the continuation's attention before it is decoded; "
                        + "leave it out of decode mode");
            }
        }
        int max = model.config().contextLength();
        if (max > 0 && settings.windowLength() - 1 > max) {
            throw new JacapException("prefill " + settings.prefillTokens() + " + continuation "
                    + settings.continuationTokens() + " passes the model's context of " + max);
        }
        this.model = model;
        this.settings = settings;
        this.policies = List.copyOf(policies);
        this.storage = storage;
    }

    private boolean stored() {
        return !storage.equals(KvCacheTypes.F32);
    }

    public long workUnits(int documents) {
        return (long) documents * (1 + policies.size() + (stored() ? 1 : 0)) * chunks();
    }

    private int chunks() {
        return (settings.continuationTokens() + CHUNK - 1) / CHUNK;
    }

    public EvalReport run(List<int[]> windows, String description, Progress progress) {
        if (windows.isEmpty()) {
            throw new JacapException("no evaluation documents: the text is shorter than one window of "
                    + settings.windowLength() + " tokens");
        }
        int p0 = settings.prefillTokens();
        int t = settings.continuationTokens();
        int vocab = model.config().vocabSize();
        TokenComparison comparison = new TokenComparison(vocab);
        CellAccumulator full = new CellAccumulator("full", 0);
        CellAccumulator storageCell = stored() ? new CellAccumulator(FidelityEvaluation.storageRow(storage), 0) : null;
        List<CellAccumulator> cells = new ArrayList<>();
        for (EvalPolicy p : policies) {
            cells.add(new CellAccumulator(p.name(), settings.ratio()));
        }
        long total = workUnits(windows.size());
        long done = 0;
        double fullNll = 0;
        for (int d = 0; d < windows.size(); d++) {
            int[] w = windows.get(d);
            if (w.length != settings.windowLength()) {
                throw new IllegalArgumentException(
                        "window of " + w.length + " tokens, expected " + settings.windowLength());
            }
            String what = "document " + (d + 1) + "/" + windows.size();
            progress.update(done, total, what);
            InferenceState reference = model.newState(p0 + t);
            model.forward(reference, w, 0, p0, false);
            InferenceState storedFull = stored() ? model.newState(p0 + t, storage) : null;
            List<TokenComparison.Score> storageScores = new ArrayList<>(t);
            if (storedFull != null) {
                model.forward(storedFull, w, 0, p0, false);
            }
            List<EvictionSchedule> schedules = new ArrayList<>();
            long[] nanos = new long[policies.size()];
            for (EvalPolicy p : policies) {
                EvictionPolicy policy = p.forDocument(null, Protection.NONE);
                EvictionSettings es = EvictionSettings.budget(policy, settings.budget());
                EvictionSchedule schedule =
                        new EvictionSchedule(model, EvictionSchedule.newState(model, es, p0 + t, storage), es, p0 + t);
                schedule.prompt(w, 0, p0);
                schedules.add(schedule);
            }
            List<List<TokenComparison.Score>> scores = new ArrayList<>();
            List<TokenComparison.Score> reference0 = new ArrayList<>();
            for (int i = 0; i < policies.size(); i++) {
                scores.add(new ArrayList<>(t));
            }
            double nll = 0;
            for (int c = 0; c < t; c += CHUNK) {
                int len = Math.min(CHUNK, t - c);
                float[] pLogits = model.forward(reference, w, p0 + c, len, true);
                TokenComparison.Reference[] refs = new TokenComparison.Reference[len];
                for (int j = 0; j < len; j++) {
                    refs[j] = comparison.reference(pLogits, j * vocab);
                    TokenComparison.Score s = comparison.compare(refs[j], pLogits, j * vocab, w[p0 + c + j + 1]);
                    reference0.add(s);
                    nll += s.nllFull();
                }
                progress.update(++done, total, what);
                if (storedFull != null) {
                    float[] q = model.forward(storedFull, w, p0 + c, len, true);
                    for (int j = 0; j < len; j++) {
                        storageScores.add(comparison.compare(refs[j], q, j * vocab, w[p0 + c + j + 1]));
                    }
                    progress.update(++done, total, what);
                }
                for (int i = 0; i < policies.size(); i++) {
                    float[] q = schedules.get(i).decode(w, p0 + c, len, true);
                    for (int j = 0; j < len; j++) {
                        scores.get(i).add(comparison.compare(refs[j], q, j * vocab, w[p0 + c + j + 1]));
                    }
                    progress.update(++done, total, what);
                }
            }
            fullNll += nll / t;
            full.add(DocumentFidelity.of(reference0), null, p0 + t, 0);
            if (storageCell != null) {
                storageCell.add(DocumentFidelity.of(storageScores), null, p0 + t, 0);
            }
            for (int i = 0; i < policies.size(); i++) {
                EvictionSchedule s = schedules.get(i);
                if (s.peakHeadLength() > s.headCapacity()) {
                    throw new IllegalStateException(policies.get(i).name() + " held " + s.peakHeadLength()
                            + " entries in a head; the capacity is " + s.headCapacity());
                }
                nanos[i] = s.scoringNanos();
                cells.get(i).add(DocumentFidelity.of(scores.get(i)), null, settings.budget(), nanos[i]);
            }
        }
        progress.update(total, total, "bootstrap");
        PairedBootstrap bootstrap = new PairedBootstrap(windows.size(), settings.bootstrapResamples(), settings.seed());
        return EvalReport.summarize(description, fullNll / windows.size(), bootstrap, full, storageCell, cells);
    }
}

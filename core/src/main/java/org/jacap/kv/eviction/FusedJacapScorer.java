package org.jacap.kv.eviction;

import java.util.Arrays;
import java.util.Locale;
import org.jacap.JacapException;
import org.jacap.kv.eviction.math.TopK;

/**
 * The default {@code jacap}: the paper's capacity ranking ({@link JacapScorer}, kept as
 * {@code jacap-paper}) fused with a relevance ranking, plus sinks and a recent window inside the
 * budget. On real text the capacity score alone keeps what a later question needs but drops the
 * recent text the next tokens need (docs/eviction.md); attention alone is the reverse. Since
 * 2026-12-06 the relevance is the capacity score weighed by the attention each entry received
 * ({@code jacap-observed}): the two {@code ᾱ}s, the paper's and the observed, split the budget.
 *
 * <p>Per KV head, with rank 0 the best of each ranking, the fused key of entry i is
 * {@code min(rank_rel(i) / share, rank_cap(i) / (1 − share))}: a budget of k keeps about the
 * {@code share·k} best by relevance and the {@code (1 − share)·k} best by capacity (their union,
 * so overlap leaves room for more of both). With {@code reserve = C} only the capacity ranking's
 * first C entries take part: a budget keeps at most C entries for capacity alone, so as the budget
 * grows the rest goes to relevance (a small fixed room for what a later question needs, instead of
 * a fixed fraction). The fused score does not depend on the budget, so one scoring serves every
 * budget. The first {@code sinks} and last {@code recent} entries score above all others.
 *
 * <p>With a {@link LongContext} ({@code long_from=N}, off by default), a layer holding at least
 * {@code from} entries is scored with SnapKV's observation window as the relevance and the long
 * context's own reserve instead. On 8 windows per model that form won at 4,096 (SmolLM2) and 8,192
 * tokens (Gemma 3); on 16 windows at 4,096 it lost on both, with heavy-tailed failures, so the
 * default keeps one regime (docs/eviction.md, "Contexts of 2k-8k: the window-led regime").
 *
 * <p>With a {@link WindowLead} ({@code window_share=S}, a tenth by default since 2026-12-04) a third ranking takes part
 * at every length: SnapKV's observation window of the last queries leads {@code S} of the budget,
 * beside the accumulated attention's {@code share}, and capacity the rest ({@code 1 − share − S}),
 * so what the last queries look at (a question at the end of a long context) is kept without
 * giving up the accumulated attention that keeps the next tokens' KL low. A long-context regime is
 * window-led already and has no window lead of its own. On 16 windows at 4,096 tokens
 * {@code window_share=0.2} was the lowest or level KL in five of six cells (docs/eviction.md, "A third ranking");
 * on 100 windows of both models at 1,024 a tenth taken from the attention's share kept more passkeys at 0.9.
 * Since 2026-12-07 the window's share grows past 4,096 entries to half at 8,192, out of the attention's
 * share ({@link WindowLead#shareAt}): at 8k on 8 windows of both models half the budget led by the
 * window had the lower KL at 0.9 (SmolLM2 0.0223 against 0.0377, Gemma 3 0.0429 against 0.0529),
 * where at 1,024 it cost 15-60% more KL (docs/eviction.md, "The window's share grows with the context").
 *
 * <p>Since 2026-12-07 (night) the capacity ranking is made from each capacity score averaged over the
 * 17 entries around it ({@code capacity_kernel=17}, SnapKV's pooling applied to capacity): a run of
 * entries the model could not predict outranks a lone high one, and a run is what a later question
 * copies. On 24 windows of Gemma 3 at 1,024 the planted span's probe rose from 0.63 / 0.43 / 0.19 to
 * 0.94 / 0.94 / 0.78 at ratios 0.5 / 0.75 / 0.9 at a KL within 7% (lower at 0.9); under a per-head
 * budget the scores stay as they are ({@code budget_kernel=1}).
 *
 * <p>Two uses, two forms (since 2026-12-07). Where a prompt is compressed once by a ratio, what a
 * later question asks must survive: a layer's KV heads share its budget AdaKV-style by the capacity
 * of their entries ({@code heads=capacity}) and capacity leads up to {@code reserve} (96) entries.
 * Under a per-head budget, decoding on, the recent text matters more: {@link #underBudget} keeps
 * the same count per head and {@code budget_reserve} (48). On 100 windows of SmolLM2 the first
 * form kept every passkey at 0.5 and 0.75; in budgeted decoding either change alone cost KL.
 *
 * @param relevance the attention ranking (tova, snapkv or h2o scorer); null: capacity only
 * @param capacity  the capacity ranking (jacap-paper or capkv; keydiff as an ablation); null: relevance only
 * @param share     fraction of the budget the relevance ranking leads, in [0, 1]
 * @param reserve   how many of the capacity ranking's best entries take part ({@link #UNBOUNDED}, spelt
 *                  {@code reserve=all}: every entry, so capacity leads its share of any budget)
 * @param longContext the regime of long layers; null: one regime at every length
 * @param windowLead  the observation window's own share of every budget; null: none
 * @param heads       how a layer's budget is shared among its KV heads ({@code heads=}): evenly, or
 *                    AdaKV-style by a currency the heads' entries compete on ({@link HeadBudgets})
 * @param budgetReserve the reserve under a per-head budget ({@code budget_reserve=}, see
 *                    {@link #underBudget}); {@code reserve} is the one where a prompt is compressed by a ratio
 * @param capacityKernel how many neighbouring entries each capacity score is averaged over before
 *                    the capacity ranking is made ({@code capacity_kernel=}, odd; 1: none)
 * @param budgetKernel the capacity kernel under a per-head budget ({@code budget_kernel=}, see
 *                    {@link #underBudget}); {@code capacityKernel} is the one where a prompt is compressed by a ratio
 */
public record FusedJacapScorer(
        KvScorer relevance,
        KvScorer capacity,
        double share,
        int sinks,
        int recent,
        int reserve,
        LongContext longContext,
        WindowLead windowLead,
        HeadBudgets heads,
        int budgetReserve,
        int capacityKernel,
        int budgetKernel)
        implements KvScorer {
    /** {@code reserve} when every entry of the capacity ranking takes part. */
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    /**
     * From {@code from} entries on, SnapKV with a {@code window}-query observation window (kernel
     * {@link SnapKvScorer#DEFAULT_KERNEL}, no value weighting) leads, and the capacity ranking takes
     * part up to {@code reserve} entries; capacity, share, sinks and recent stay.
     */
    public record LongContext(int from, int window, int reserve) {
        public LongContext {
            if (from < 1 || window < 1 || reserve < 0) {
                throw new JacapException("jacap: long_from and long_window must be >= 1 and long_reserve >= 0");
            }
        }
    }

    /**
     * SnapKV with a {@code queries}-query observation window (kernel {@link SnapKvScorer#DEFAULT_KERNEL},
     * no value weighting) leads {@code share} of every budget beside the relevance ranking. In a layer
     * holding more than {@code growFrom} entries its share grows linearly with the entries, reaching
     * {@code longShare} at twice {@code growFrom}, and the growth is taken from the relevance ranking's
     * share (as much as it has): the longer the context, the more the last queries know what matters
     * ({@code window_share_long=}, {@code window_grow_from=}; {@link #NEVER}: a fixed share).
     */
    public record WindowLead(double share, int queries, double longShare, int growFrom) {
        /** {@code growFrom} of a share that does not grow, spelt {@code window_grow_from=never}. */
        public static final int NEVER = Integer.MAX_VALUE;

        public WindowLead {
            if (!(share > 0 && share <= 1) || queries < 1) {
                throw new JacapException("jacap: window_share must be in (0, 1] and window_queries >= 1");
            }
            if (!(longShare >= share && longShare <= 1) || growFrom < 1) {
                throw new JacapException(
                        "jacap: window_share_long must be in [window_share, 1] and window_grow_from >= 1");
            }
            if (growFrom == NEVER || longShare == share) { // one spelling of a fixed share
                growFrom = NEVER;
                longShare = share;
            }
        }

        /** A share that does not grow with the context. */
        public WindowLead(double share, int queries) {
            this(share, queries, share, NEVER);
        }

        /** The window's share in a layer holding {@code entries} entries, before the relevance's share caps its growth. */
        public double shareAt(int entries) {
            if (entries <= growFrom) {
                return share;
            }
            double t = Math.min(1.0, (double) (entries - growFrom) / growFrom);
            return share + (longShare - share) * t;
        }

        SnapKvScorer scorer() {
            return new SnapKvScorer(queries, SnapKvScorer.DEFAULT_KERNEL);
        }
    }

    /**
     * How a layer's budget is shared among its KV heads. {@code UNIFORM}: each keeps the same
     * number. Otherwise AdaKV-style ({@link AdaKvAllocator}): the layer's total goes to the best
     * (head, entry) pairs by a currency comparable across heads, each head keeping the top of its
     * own fused ranking, so a head whose entries carry more of the currency keeps more of them.
     * {@code CAPACITY}: the observed-ᾱ capacity score ({@code jacap-observed}, a ridge leverage
     * times its weight); {@code ATTENTION}: H2O's mean attention received, AdaKV's own currency.
     */
    public enum HeadBudgets {
        UNIFORM,
        CAPACITY,
        ATTENTION;

        /** As {@code heads=} spells it. */
        public String spelt() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The currency of {@link HeadBudgets#CAPACITY}. */
    private static final JacapScorer CAPACITY_CURRENCY = JacapScorer.observed();

    /** The currency of {@link HeadBudgets#ATTENTION}: H2O as kvpress runs it. */
    private static final ObservedAttentionScorer ATTENTION_CURRENCY = new ObservedAttentionScorer();

    /** The observation window's queries when {@code window_share} is given without {@code window_queries}. */
    public static final int DEFAULT_WINDOW_QUERIES = 64;

    /** Where a window lead's share starts to grow unless {@code window_grow_from} says otherwise (the default's too). */
    public static final int DEFAULT_WINDOW_GROW_FROM = 4096;

    /** The long-context regime {@code long_from=N} gives unless told otherwise: a 64-query window and a reserve of 96 (here from 8,192 entries). */
    public static final LongContext DEFAULT_LONG_CONTEXT = new LongContext(8192, 64, 96);

    /** Every KV head of a layer keeps the same number of entries, with the same reserve under a ratio and a budget. */
    public FusedJacapScorer(
            KvScorer relevance,
            KvScorer capacity,
            double share,
            int sinks,
            int recent,
            int reserve,
            LongContext longContext,
            WindowLead windowLead) {
        this(
                relevance,
                capacity,
                share,
                sinks,
                recent,
                reserve,
                longContext,
                windowLead,
                HeadBudgets.UNIFORM,
                reserve,
                1,
                1);
    }

    /** One regime at every length. */
    public FusedJacapScorer(KvScorer relevance, KvScorer capacity, double share, int sinks, int recent, int reserve) {
        this(relevance, capacity, share, sinks, recent, reserve, null, null);
    }

    /** The unbounded form: capacity leads its share of every budget. */
    public FusedJacapScorer(KvScorer relevance, KvScorer capacity, double share, int sinks, int recent) {
        this(relevance, capacity, share, sinks, recent, UNBOUNDED);
    }

    public FusedJacapScorer {
        if (relevance == null && capacity == null) {
            throw new JacapException("jacap: needs a relevance or a capacity ranking");
        }
        if (!(share >= 0 && share <= 1)) {
            throw new JacapException("jacap: share must be in [0, 1], got " + share);
        }
        if (sinks < 0 || recent < 0 || reserve < 0 || budgetReserve < 0) {
            throw new JacapException("jacap: sinks, recent, reserve and budget_reserve must be >= 0");
        }
        if (heads == null) {
            heads = HeadBudgets.UNIFORM;
        }
        if (capacityKernel < 1 || capacityKernel % 2 == 0 || budgetKernel < 1 || budgetKernel % 2 == 0) {
            throw new JacapException("jacap: capacity_kernel and budget_kernel must be odd and >= 1, got "
                    + capacityKernel + " and " + budgetKernel);
        }
        if (relevance == null) {
            share = 0;
        } else if (capacity == null && windowLead == null) {
            share = 1;
        }
        if (windowLead != null && (relevance == null || share + windowLead.share() > 1 + 1e-12)) {
            throw new JacapException("jacap: window_share needs a relevance ranking and share + window_share <= 1, got "
                    + share + " + " + windowLead.share());
        }
    }

    /**
     * H2O's observed attention weighed by what evicting the entry would change in each query head's
     * output through W_O, the group's largest ({@link ValueWeight#OUTPUT}, {@link GroupReduction#MAX}):
     * {@code relevance=h2o}, the default relevance from 2026-12-02 to 2026-12-06. On 24 windows of
     * both real models it has a lower KL than H2O at 0.5 and 0.9 (docs/eviction.md, "Value-aware relevance").
     */
    public static final ObservedAttentionScorer VALUE_AWARE_ATTENTION =
            new ObservedAttentionScorer(ValueWeight.OUTPUT, GroupReduction.MAX);

    /**
     * The default relevance since 2026-12-06: the capacity score with the attention each entry
     * received as its weight ({@link JacapScorer#observed()}), so the two {@code ᾱ}s split the budget.
     * On 100 windows of both real models at 1,024 it kept the KL within 3% of
     * {@link #VALUE_AWARE_ATTENTION}'s (lower in four of six cells) and the passkey at 0.9 on Gemma 3
     * 0.58 → 0.99, SmolLM2 0.34 → 0.59 (docs/eviction.md, "The two ᾱs on 100 windows").
     */
    public static final JacapScorer DEFAULT_RELEVANCE = JacapScorer.observed();

    /**
     * The default {@code reserve} where a prompt is compressed by a ratio, since 2026-12-07: capacity
     * leads at most its best 96 entries (36.5% of a budget up to 263). On 100 windows of both real
     * models against 48 it kept more of the planted span and more passkeys at 0.5 and 0.75
     * (docs/eviction.md, "A larger capacity reserve for large budgets").
     */
    public static final int DEFAULT_RESERVE = 96;

    /**
     * The default {@code budget_reserve}, the reserve under a per-head budget: 48 entries (the
     * default reserve of 2026-12-01 to 2026-12-07). Budgeted decoding wants the recent text: with
     * 96 there the KL of 512 + 2,048 tokens under 256 entries rose 5-7% (4 windows of each model).
     */
    public static final int DEFAULT_BUDGET_RESERVE = 48;

    /**
     * The default {@code share}: relevance leads 53.5% of a budget the reserve does not cap (below
     * about 263 entries under a ratio, 131 under a budget), the observation window 10% ({@link #DEFAULT_WINDOW_LEAD}) and capacity the
     * remaining 36.5%. Capacity's 36.5% is the share whose KL stayed inside H2O's interval at Gemma 3's
     * ratio 0.9 (102 entries) with a passkey above H2O's; the window's tenth comes out of the
     * attention's 63.5% of the default before (docs/eviction.md, "The window's tenth").
     */
    public static final double DEFAULT_SHARE = 0.535;

    /**
     * The default window lead: SnapKV's window of the last 64 queries leads 10% of every budget up to
     * 4,096 entries, and from there a share growing to 50% at 8,192 entries (since 2026-12-07). On
     * 100 windows of both real models at 1,024 the tenth kept more passkeys at ratio 0.9 (Gemma 3 0.51
     * → 0.58, SmolLM2 0.29 → 0.34) and lowered SmolLM2's KL at every ratio, Gemma's within 0.002; at
     * 6,144 and 8,192 the growing share had the lower KL in 8 of 12 cells, 2 level, and the same
     * passkeys but one more and one fewer (8 windows per model and length; docs/eviction.md).
     */
    public static final WindowLead DEFAULT_WINDOW_LEAD =
            new WindowLead(0.1, DEFAULT_WINDOW_QUERIES, 0.5, DEFAULT_WINDOW_GROW_FROM);

    /**
     * Measured defaults (docs/eviction.md, 100 windows of both real models): the capacity score
     * weighed by the attention each entry received ({@link #DEFAULT_RELEVANCE}) leads every budget, SnapKV's observation window a tenth of it
     * ({@link #DEFAULT_WINDOW_LEAD}), the paper's capacity ranking takes at most its best 96 entries
     * under a ratio ({@link #DEFAULT_RESERVE}; 48 under a budget, {@link #DEFAULT_BUDGET_RESERVE}) and 36.5% of a smaller budget (what {@link #DEFAULT_SHARE} and the
     * window leave), 4 sinks, no recent window, one regime at every length, and a layer's KV heads
     * sharing its budget by capacity under a ratio ({@link #DEFAULT_HEADS}), the capacity ranking made from
     * scores averaged over 17 entries under a ratio ({@link #DEFAULT_CAPACITY_KERNEL}).
     * Against TOVA as the relevance with half of every budget (an earlier default) the value-aware
     * attention halved Gemma 3's KL at 0.5; 32 entries were too few to keep the passkey at 0.9 on Gemma 3.
     */
    public static FusedJacapScorer defaults() {
        return new FusedJacapScorer(
                DEFAULT_RELEVANCE,
                JacapScorer.defaults(),
                DEFAULT_SHARE,
                4,
                0,
                DEFAULT_RESERVE,
                null,
                DEFAULT_WINDOW_LEAD,
                DEFAULT_HEADS,
                DEFAULT_BUDGET_RESERVE,
                DEFAULT_CAPACITY_KERNEL,
                DEFAULT_BUDGET_KERNEL);
    }

    /**
     * The default {@code heads} since 2026-12-07: a layer's KV heads share its budget by the capacity
     * of their entries (AdaKV) where a prompt is compressed by a ratio; under a per-head budget they
     * keep the same count ({@link EvictionSettings}). On 100 windows of SmolLM2 at 1,024 (three KV
     * heads) it kept the passkey at 0.9 82 times of 100 against 59, with a lower KL at 0.75 and 0.9
     * and a higher one at 0.5 (0.0342 against 0.0304); a model with one KV head (Gemma 3) is
     * unchanged (docs/eviction.md, "Head budgets driven by capacity").
     */
    public static final HeadBudgets DEFAULT_HEADS = HeadBudgets.CAPACITY;

    /**
     * The default {@code capacity_kernel} where a prompt is compressed by a ratio, since 2026-12-07
     * (night): each capacity score averaged over the 17 entries around it, so the reserve goes to runs
     * of text the model could not predict rather than to lone entries. What a later question copies
     * is a run, and one kept entry of it does not let the model copy it. On 24 windows of Gemma 3 at
     * 1,024 the planted span's probe rose from 0.63 / 0.43 / 0.19 to 0.94 / 0.94 / 0.78 at ratios 0.5 /
     * 0.75 / 0.9 (ExpectedAttention's 0.86 / 0.59 / 0.22), with KL +7%, +2% and −9% (docs/eviction.md,
     * "Capacity over runs of entries").
     */
    public static final int DEFAULT_CAPACITY_KERNEL = 17;

    /**
     * The default {@code budget_kernel}, the capacity kernel under a per-head budget: 1, the capacity
     * scores as the ranking gives them. On 16 decode windows (budget 256) a kernel of 17 was level
     * (KL 1-2% lower), but decode mode has no retrieval task to show what the kernel is for, and 1
     * keeps budgeted decoding's bits.
     */
    public static final int DEFAULT_BUDGET_KERNEL = 1;

    @Override
    public int protectedSinks() {
        return sinks;
    }

    /** The scorer a layer of {@code entries} entries is scored with: this one, or its long-context regime. */
    public FusedJacapScorer regimeFor(int entries) {
        if (longContext == null || entries < longContext.from()) {
            return this;
        }
        return new FusedJacapScorer(
                new SnapKvScorer(longContext.window(), SnapKvScorer.DEFAULT_KERNEL),
                capacity,
                share,
                sinks,
                recent,
                longContext.reserve(),
                null,
                null,
                heads,
                longContext.reserve(),
                capacityKernel,
                budgetKernel);
    }

    /**
     * The form that runs under a per-head budget ({@link EvictionSettings}): the same count per KV
     * head and {@code budget_reserve} as the reserve. In budgeted decoding every uneven head count
     * measured cost KL (docs/eviction.md, "Head shares under a ratio, even counts under a budget"),
     * and so did the larger reserve; a prompt compressed once by a ratio keeps both.
     */
    @Override
    public FusedJacapScorer underBudget() {
        if (heads == HeadBudgets.UNIFORM && budgetReserve == reserve && budgetKernel == capacityKernel) {
            return this;
        }
        return new FusedJacapScorer(
                relevance,
                capacity,
                share,
                sinks,
                recent,
                budgetReserve,
                longContext,
                windowLead,
                HeadBudgets.UNIFORM,
                budgetReserve,
                budgetKernel,
                budgetKernel);
    }

    @Override
    public String name() {
        return "jacap";
    }

    @Override
    public String spec() {
        return name() + ":relevance=" + (relevance == null ? "none" : relevance.name()) + ",capacity="
                + (capacity == null ? "none" : capacity.name()) + ",share=" + share + ",sinks=" + sinks + ",recent="
                + recent + ",reserve=" + spelt(reserve) + ",budget_reserve=" + spelt(budgetReserve)
                + ",capacity_kernel=" + capacityKernel + ",budget_kernel=" + budgetKernel
                + (relevance instanceof SnapKvScorer snap
                        ? ",window=" + snap.windowSize() + ",kernel=" + snap.kernelSize() + ","
                                + ValueWeighting.spec(snap.values(), snap.group())
                        : "")
                + (relevance instanceof ObservedAttentionScorer o
                        ? "," + ValueWeighting.spec(o.values(), o.group())
                        : "")
                + (longContext == null
                        ? ",long_from=never"
                        : ",long_from=" + longContext.from() + ",long_window=" + longContext.window() + ",long_reserve="
                                + spelt(longContext.reserve()))
                + (windowLead == null // spelt out: the default has a window lead
                        ? ",window_share=0"
                        : ",window_share=" + windowLead.share() + ",window_queries=" + windowLead.queries()
                                + (windowLead.growFrom() == WindowLead.NEVER
                                        ? ""
                                        : ",window_share_long=" + windowLead.longShare() + ",window_grow_from="
                                                + windowLead.growFrom()))
                + ",heads=" + heads.spelt(); // spelt out: the default shares
    }

    /** AdaKV's joint selection when the heads share the layer's budget, else the same count per head. */
    @Override
    public BudgetAllocator allocator() {
        return heads == HeadBudgets.UNIFORM ? new UniformAllocator() : new AdaKvAllocator(AdaKvAllocator.DEFAULT_ALPHA);
    }

    /** A reserve as the registry parses it: {@code all} for {@link #UNBOUNDED}. */
    private static String spelt(int reserve) {
        return reserve == UNBOUNDED ? "all" : String.valueOf(reserve);
    }

    @Override
    public StatisticsSpec statistics() {
        StatisticsSpec own = relevance == null
                ? capacity.statistics()
                : capacity == null
                        ? relevance.statistics()
                        : relevance.statistics().union(capacity.statistics());
        if (windowLead != null) {
            own = own.union(windowLead.scorer().statistics());
        }
        if (heads != HeadBudgets.UNIFORM) {
            own = own.union(currencyScorer().statistics());
        }
        return longContext == null
                ? own
                : own.union(regimeFor(longContext.from()).statistics());
    }

    @Override
    public double[][] score(LayerSnapshot layer, ScoreTrace trace) {
        FusedJacapScorer regime = regimeFor(layer.head(0).length());
        if (regime != this) {
            return regime.score(layer, trace);
        }
        double[][] rel = relevance == null ? null : relevance.score(layer, ScoreTrace.NONE);
        double[][] capRaw = capacity == null ? null : capacity.score(layer, ScoreTrace.NONE);
        double[][] cap = capRaw == null || capacityKernel == 1 ? capRaw : pooled(capRaw);
        double[][] win = windowLead == null ? null : windowLead.scorer().score(layer, ScoreTrace.NONE);
        double capShare = 1 - share - (windowLead == null ? 0 : windowLead.share());
        // a long layer's window grows into the relevance's share; capacity's stays
        double grown = windowLead == null
                ? 0
                : Math.min(share, windowLead.shareAt(layer.head(0).length()) - windowLead.share());
        double relShare = share - grown;
        double winShare = windowLead == null ? 0 : windowLead.share() + grown;
        int kvHeads = layer.shape().kvHeads();
        double[][] s = new double[kvHeads][];
        for (int g = 0; g < kvHeads; g++) {
            int n = layer.head(g).length();
            double[] relRank = rel == null ? null : ranks(rel[g], n);
            double[] capRank = cap == null ? null : ranks(cap[g], n);
            double[] winRank = win == null ? null : ranks(win[g], n);
            s[g] = new double[n];
            for (int i = 0; i < n; i++) {
                double a = relShare > 0 ? relRank[i] / relShare : Double.POSITIVE_INFINITY;
                double b = capRank != null && capShare > 0 && capRank[i] < reserve
                        ? capRank[i] / capShare
                        : Double.POSITIVE_INFINITY;
                double c = winRank == null ? Double.POSITIVE_INFINITY : winRank[i] / winShare;
                s[g][i] = -Math.min(a, Math.min(b, c));
            }
            if (trace.enabled()) {
                trace.record("fused", g, s[g].clone());
            }
        }
        protect(s);
        if (heads != HeadBudgets.UNIFORM && kvHeads > 1) {
            KvScorer currencyScorer = currencyScorer();
            double[][] currency = currencyScorer.equals(relevance)
                    ? rel
                    : currencyScorer.equals(capacity) ? capRaw : currencyScorer.score(layer, ScoreTrace.NONE);
            for (int g = 0; g < kvHeads; g++) {
                s[g] = inCurrency(s[g], currency[g]);
            }
        }
        return s;
    }

    private KvScorer currencyScorer() {
        return heads == HeadBudgets.CAPACITY ? CAPACITY_CURRENCY : ATTENTION_CURRENCY;
    }

    /**
     * One head's fused scores re-valued so that heads compare by currency while each keeps its own
     * order: the entry at place r of the fused order (after the protected ones, which keep their
     * scores above everything) takes the r-th largest currency of the head's unprotected entries,
     * mapped into [-1, 0) by {@code -1/(1 + c)} and made strictly decreasing along the order. A joint
     * top-k over a layer's heads then gives each head as many entries as AdaKV by that currency
     * would, and they are the best of its fused ranking. Independent of the budget, like the fused score.
     */
    static double[] inCurrency(double[] fused, double[] currency) {
        int n = fused.length;
        int[] order = TopK.rankOrder(fused, n);
        double[] values = new double[n];
        int unprotected = 0;
        for (int i = 0; i < n; i++) {
            if (fused[i] <= 0) {
                values[unprotected++] = -1 / (1 + Math.max(0, currency[i]));
            }
        }
        Arrays.sort(values, 0, unprotected); // ascending: the largest currency last
        double[] out = new double[n];
        double previous = 0;
        int next = unprotected;
        for (int r = 0; r < n; r++) {
            int i = order[r];
            if (fused[i] > 0) {
                out[i] = fused[i];
                continue;
            }
            double v = Math.min(values[--next], Math.nextDown(previous));
            out[i] = v;
            previous = v;
        }
        return out;
    }

    /**
     * Each head's capacity scores averaged over the {@code capacityKernel} entries centred on each
     * (fewer at the ends; the sinks, this scorer's and the capacity scorer's own, neither pooled nor
     * pooled into): a run of entries that all carry capacity, such as a span of text the model could
     * not predict, outranks a lone high entry.
     */
    private double[][] pooled(double[][] cap) {
        double[][] out = new double[cap.length][];
        int from = Math.max(sinks, capacity.protectedSinks());
        for (int g = 0; g < cap.length; g++) {
            out[g] = averagePool(cap[g], capacityKernel, Math.min(from, cap[g].length));
        }
        return out;
    }

    /** {@code x[i]} averaged over {@code x[i − kernel/2 .. i + kernel/2] ∩ [from, n)} for i ≥ from; {@code x[i]} below. */
    static double[] averagePool(double[] x, int kernel, int from) {
        int half = kernel / 2;
        double[] y = x.clone();
        for (int i = from; i < x.length; i++) {
            double sum = 0;
            int lo = Math.max(from, i - half);
            int hi = Math.min(x.length - 1, i + half);
            for (int j = lo; j <= hi; j++) {
                sum += x[j];
            }
            y[i] = sum / (hi - lo + 1);
        }
        return y;
    }

    /** rank[i] = place of entry i in the ranking (0 = best; ties toward the lower index). */
    static double[] ranks(double[] scores, int n) {
        int[] order = TopK.rankOrder(scores, n);
        double[] rank = new double[n];
        for (int r = 0; r < n; r++) {
            rank[order[r]] = r;
        }
        return rank;
    }

    /** Sinks first, then the recent window newest first, above every fused score (which are ≤ 0). */
    private void protect(double[][] s) {
        int total = sinks + recent;
        for (double[] row : s) {
            int n = row.length;
            int sinkCount = Math.min(sinks, n);
            for (int i = 0; i < sinkCount; i++) {
                row[i] = 1 + (total - i);
            }
            for (int j = 0; j < Math.min(recent, n - sinkCount); j++) {
                row[n - 1 - j] = 1 + (total - sinks - j);
            }
        }
    }
}

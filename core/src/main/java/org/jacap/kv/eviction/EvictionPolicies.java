package org.jacap.kv.eviction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.jacap.JacapException;
import org.jacap.kv.eviction.math.LeverageSolver;

/**
 * The policy registry: parses {@code name[:key=value,...]} specs, e.g. {@code capkv},
 * {@code jacap-paper:tau=20,normalize=false}, {@code jacap:relevance=tova,share=0.75},
 * {@code snapkv:window=32}, {@code pyramid:beta=20}.
 * Every evicting scorer also takes {@code protect_sinks=S,protect_recent=R} (see {@link ProtectedScorer}).
 * Unknown names and keys fail with a message listing the valid ones.
 */
public final class EvictionPolicies {
    /** One scorer of a registry: its name, the other names it answers to, and how a spec builds it. */
    private record Entry(String name, List<String> aliases, Function<Spec, KvScorer> factory) {
        Entry(String name, Function<Spec, KvScorer> factory, String... aliases) {
            this(name, List.of(aliases), factory);
        }

        boolean answers(String n) {
            return name.equals(n) || aliases.contains(n);
        }
    }

    /**
     * The fused {@code jacap}'s relevance rankings ({@code relevance=}): each built from the spec,
     * {@code window}/{@code kernel} (snapkv) and {@code values}/{@code group} passing through (h2o's
     * default to the default relevance's, snapkv's to none/mean); {@code jacap-observed} is the
     * capacity score with the received attention as its weight, so the two {@code ᾱ}s split the
     * budget (observed leads, the paper's keeps its reserve); {@code none} gives null, the capacity
     * ranking alone.
     */
    private static final List<Entry> RELEVANCE_REGISTRY = List.of(
            new Entry("snapkv", s -> snapKv(s, 32)),
            new Entry("tova", s -> new TovaScorer()),
            new Entry("h2o", s -> observed(s, FusedJacapScorer.VALUE_AWARE_ATTENTION)),
            new Entry("jacap-observed", s -> JacapScorer.observed()),
            new Entry("none", s -> null));

    /** The fused {@code jacap}'s capacity rankings ({@code capacity=}; keydiff and expected as ablations); {@code none}: relevance alone. */
    private static final List<Entry> CAPACITY_REGISTRY = List.of(
            new Entry("jacap-paper", s -> JacapScorer.defaults()),
            new Entry("jacap-observed", s -> JacapScorer.observed()),
            new Entry("capkv", s -> CapKvScorer.defaults()),
            new Entry("keydiff", s -> KeyDiffScorer.defaults()),
            new Entry("expected", s -> ExpectedAttentionScorer.defaults()),
            new Entry("none", s -> null));

    /** The fused {@code jacap}'s {@code relevance=} values (from its registry). */
    public static final List<String> FUSED_RELEVANCES = names(RELEVANCE_REGISTRY);

    /** The fused {@code jacap}'s {@code capacity=} values (from its registry). */
    public static final List<String> FUSED_CAPACITIES = names(CAPACITY_REGISTRY);

    /** {@code greedy}'s {@code weights=} values: whose capacity weights its log-det picks use. */
    private static final List<Entry> GREEDY_WEIGHTS = List.of(
            new Entry("jacap-paper", s -> JacapScorer.defaults()),
            new Entry("capkv", s -> CapKvScorer.defaults()),
            new Entry("jacap", s -> JacapScorer.defaults()));

    /**
     * The scorer registry, in the order lists show them. {@link #SCORERS}, the parser and the
     * tests that cover every policy all derive from it.
     */
    private static final List<Entry> REGISTRY = List.of(
            new Entry("none", s -> new KeepAllScorer()),
            new Entry("random", s -> new RandomScorer(s.integer(RandomScorer.DEFAULT_SEED, "seed"))),
            new Entry(
                    "streaming",
                    s -> new StreamingScorer((int) s.integer(StreamingScorer.DEFAULT_SINKS, "n_sink", "sinks")),
                    "streaming_llm"),
            new Entry("knorm", s -> new KeyNormScorer()),
            new Entry("keydiff", s -> new KeyDiffScorer(s.real(1e-12, "normalize_eps"), s.real(1e-8, "cosine_eps"))),
            new Entry("snapkv", s -> snapKv(s, SnapKvScorer.DEFAULT_WINDOW)),
            new Entry("tova", s -> new TovaScorer()),
            new Entry("h2o", EvictionPolicies::observed, "observed_attention", "observed"),
            new Entry("expected", EvictionPolicies::expected, "expected_attention"),
            new Entry("capkv", EvictionPolicies::capkv),
            new Entry("jacap", EvictionPolicies::fusedJacap),
            new Entry("jacap-paper", s -> jacap(s, JacapScorer.defaults()), "jacap_paper"),
            new Entry("jacap-literal", s -> jacap(s, JacapScorer.literal()), "jacap_literal"),
            new Entry("jacap-observed", s -> jacap(s, JacapScorer.observed()), "jacap_observed"),
            new Entry(
                    "greedy",
                    s -> new GreedyLogDetScorer(pick(GREEDY_WEIGHTS, "jacap-paper", s, "weights"), (int)
                            s.integer(Integer.MAX_VALUE, "max_picks"))));

    /** Scorer names, as the CLI's {@code --kv-policy} takes them (from the registry). */
    public static final List<String> SCORERS = names(REGISTRY);

    /** One budget allocator of {@link #ALLOCATOR_REGISTRY}: its name, other names, and how a spec builds it. */
    private record AllocatorEntry(String name, List<String> aliases, Function<Spec, BudgetAllocator> factory) {
        AllocatorEntry(String name, Function<Spec, BudgetAllocator> factory, String... aliases) {
            this(name, List.of(aliases), factory);
        }
    }

    private static final List<AllocatorEntry> ALLOCATOR_REGISTRY = List.of(
            new AllocatorEntry("uniform", s -> new UniformAllocator()),
            new AllocatorEntry(
                    "pyramid",
                    s -> new PyramidKvAllocator(
                            (int) s.integer(PyramidKvAllocator.DEFAULT_WINDOW, "window_size", "window"),
                            s.real(PyramidKvAllocator.DEFAULT_BETA, "beta")),
                    "pyramidkv"),
            new AllocatorEntry(
                    "ada",
                    s -> new AdaKvAllocator(s.real(AdaKvAllocator.DEFAULT_ALPHA, "alpha", "alpha_safeguard")),
                    "adakv"));

    /** Allocator names, as the CLI's {@code --kv-allocator} takes them (from the registry). */
    public static final List<String> ALLOCATORS =
            ALLOCATOR_REGISTRY.stream().map(AllocatorEntry::name).toList();

    private EvictionPolicies() {}

    /**
     * Splits a comma-separated list of scorer specs. A {@code key=value} item without a name
     * continues the previous spec, so {@code snapkv:window=32,kernel=5,capkv} is two specs; empty
     * items are skipped.
     */
    public static List<String> splitSpecs(String list) {
        List<String> specs = new ArrayList<>();
        for (String raw : list.split(",")) {
            String item = raw.strip();
            if (item.isEmpty()) {
                continue;
            }
            if (item.contains("=") && !item.contains(":") && !specs.isEmpty()) {
                specs.set(specs.size() - 1, specs.getLast() + "," + item);
            } else {
                specs.add(item);
            }
        }
        return specs;
    }

    /** A scorer with the allocator its scores are made for ({@link KvScorer#allocator()}). */
    public static EvictionPolicy policy(String scorerSpec) {
        KvScorer scorer = scorer(scorerSpec);
        return new EvictionPolicy(scorer, scorer.allocator());
    }

    public static EvictionPolicy policy(String scorerSpec, String allocatorSpec) {
        return new EvictionPolicy(scorer(scorerSpec), allocator(allocatorSpec));
    }

    public static KvScorer scorer(String spec) {
        Spec s = Spec.parse(spec);
        long protectSinks = s.integer(-1, "protect_sinks");
        long protectRecent = s.integer(-1, "protect_recent");
        Entry entry = REGISTRY.stream()
                .filter(e -> e.answers(s.name))
                .findFirst()
                .orElseThrow(() -> new JacapException(
                        "unknown KV eviction policy '" + s.name + "'; valid: " + String.join(", ", SCORERS)));
        KvScorer scorer = entry.factory().apply(s);
        s.requireAllUsed();
        if (protectSinks >= 0 || protectRecent >= 0) {
            scorer = new ProtectedScorer(scorer, (int) Math.max(0, protectSinks), (int) Math.max(0, protectRecent));
        }
        return scorer;
    }

    public static BudgetAllocator allocator(String spec) {
        Spec s = Spec.parse(spec);
        BudgetAllocator allocator = ALLOCATOR_REGISTRY.stream()
                .filter(e -> e.name().equals(s.name) || e.aliases().contains(s.name))
                .findFirst()
                .orElseThrow(() -> new JacapException(
                        "unknown KV budget allocator '" + s.name + "'; valid: " + String.join(", ", ALLOCATORS)))
                .factory()
                .apply(s);
        s.requireAllUsed();
        return allocator;
    }

    private static ObservedAttentionScorer observed(Spec s) {
        return observed(s, new ObservedAttentionScorer());
    }

    /** An observed-attention scorer whose {@code values} and {@code group} default to {@code d}'s. */
    private static ObservedAttentionScorer observed(Spec s, ObservedAttentionScorer d) {
        return new ObservedAttentionScorer(valueWeight(s, d.values()), groupReduction(s, d.group()));
    }

    /** SnapKV with its window defaulting to {@code window}; {@code values}/{@code group} as h2o's, default none/mean. */
    private static SnapKvScorer snapKv(Spec s, int window) {
        return new SnapKvScorer(
                (int) s.integer(window, "window_size", "window"),
                (int) s.integer(SnapKvScorer.DEFAULT_KERNEL, "kernel_size", "kernel"),
                valueWeight(s, ValueWeight.NONE),
                groupReduction(s, GroupReduction.MEAN));
    }

    private static ValueWeight valueWeight(Spec s, ValueWeight d) {
        return ValueWeight.valueOf(s.choice(d.spelling(), List.of("none", "norm", "deviation", "output"), "values")
                .toUpperCase(Locale.ROOT));
    }

    private static GroupReduction groupReduction(Spec s, GroupReduction d) {
        return GroupReduction.valueOf(s.choice(d.name().toLowerCase(Locale.ROOT), List.of("mean", "max"), "group")
                .toUpperCase(Locale.ROOT));
    }

    private static KvScorer expected(Spec s) {
        ExpectedAttentionScorer d = ExpectedAttentionScorer.defaults();
        return new ExpectedAttentionScorer(
                (int) s.integer(d.nSink(), "n_sink", "sinks"),
                s.real(d.epsilon(), "epsilon", "eps"),
                s.bool(d.useVnorm(), "use_vnorm", "vnorm"),
                s.bool(d.useCovariance(), "use_covariance", "covariance"));
    }

    private static KvScorer capkv(Spec s) {
        CapKvScorer d = CapKvScorer.defaults();
        return new CapKvScorer(
                (int) s.integer(d.nSink(), "n_sink", "sinks"),
                s.real(d.tau(), "tau"),
                s.real(d.epsilon(), "epsilon", "eps"),
                s.real(d.sinkBonus(), "sink_bonus"),
                ablation(s));
    }

    private static KvScorer jacap(Spec s, JacapScorer d) {
        return new JacapScorer(
                (int) s.integer(d.nSink(), "n_sink", "sinks"),
                s.real(d.tau(), "tau"),
                s.real(d.epsilon(), "epsilon", "eps"),
                s.bool(d.normalize(), "normalize"),
                s.bool(d.divideByD(), "divide_by_d"),
                s.choice("diagonal", List.of("diagonal", "full"), "covariance").equals("full"),
                s.real(d.sinkBonus(), "sink_bonus"),
                ablation(s),
                s.choice(d.observedAlpha() ? "observed" : "predicted", List.of("predicted", "observed"), "alpha")
                        .equals("observed"));
    }

    private static KvScorer fusedJacap(Spec s) {
        FusedJacapScorer d = FusedJacapScorer.defaults();
        KvScorer relevance = pick(RELEVANCE_REGISTRY, d.relevance().name(), s, "relevance");
        KvScorer capacity = pick(CAPACITY_REGISTRY, d.capacity().name(), s, "capacity");
        boolean reserveGiven = s.values.containsKey("reserve");
        boolean kernelGiven = s.values.containsKey("capacity_kernel");
        int reserve = s.count(d.reserve(), FusedJacapScorer.UNBOUNDED, "reserve");
        int capacityKernel = (int) s.integer(d.capacityKernel(), "capacity_kernel");
        return new FusedJacapScorer(
                relevance,
                capacity,
                s.real(d.share(), "share"),
                (int) s.integer(d.sinks(), "sinks", "n_sink"),
                (int) s.integer(d.recent(), "recent"),
                reserve,
                longContext(s),
                windowLead(s, relevance != null && capacity != null ? d.windowLead() : null),
                headBudgets(s, d.heads()),
                // a reserve asked for holds under a budget too, unless budget_reserve says otherwise
                s.count(reserveGiven ? reserve : d.budgetReserve(), FusedJacapScorer.UNBOUNDED, "budget_reserve"),
                capacityKernel,
                // likewise a kernel asked for holds under a budget, unless budget_kernel says otherwise
                (int) s.integer(kernelGiven ? capacityKernel : d.budgetKernel(), "budget_kernel"));
    }

    /** {@code heads=uniform|capacity|attention}: how a layer's KV heads share its budget. */
    private static FusedJacapScorer.HeadBudgets headBudgets(Spec s, FusedJacapScorer.HeadBudgets byDefault) {
        List<String> names = new ArrayList<>();
        for (FusedJacapScorer.HeadBudgets h : FusedJacapScorer.HeadBudgets.values()) {
            names.add(h.spelt());
        }
        String chosen = s.choice(byDefault.spelt(), names, "heads");
        return FusedJacapScorer.HeadBudgets.valueOf(chosen.toUpperCase(Locale.ROOT));
    }

    /**
     * The fused scorer's own observation window: {@code window_share=S} ({@code 0}: none), with
     * {@code window_queries} ({@link FusedJacapScorer#DEFAULT_WINDOW_QUERIES} unless given); unless
     * given, the default's window lead where both rankings take part and none where one is
     * {@code none} (a single ranking has no share to give the window). Its growth,
     * {@code window_share_long=L} and {@code window_grow_from=N|never}: the default's unless
     * {@code window_share} is given, which alone stays fixed; {@code N} is
     * {@link FusedJacapScorer#DEFAULT_WINDOW_GROW_FROM} unless given.
     */
    private static FusedJacapScorer.WindowLead windowLead(Spec s, FusedJacapScorer.WindowLead byDefault) {
        boolean shareGiven = s.values.containsKey("window_share");
        double share = s.real(byDefault == null ? 0 : byDefault.share(), "window_share");
        if (share == 0) {
            if (s.take("window_queries") != null
                    || s.take("window_share_long") != null
                    || s.take("window_grow_from") != null) {
                throw new JacapException(
                        "'" + s.text + "': window_queries, window_share_long and window_grow_from need window_share=S");
            }
            return null;
        }
        int queries = (int) s.integer(
                byDefault == null ? FusedJacapScorer.DEFAULT_WINDOW_QUERIES : byDefault.queries(), "window_queries");
        // a share given alone stays fixed (the spelling of the fixed shares measured before the growth)
        boolean defaultGrowth = byDefault != null && !shareGiven;
        double longShare = s.real(defaultGrowth ? byDefault.longShare() : share, "window_share_long");
        String from = s.take("window_grow_from");
        int growFrom;
        if (from == null) {
            growFrom = FusedJacapScorer.DEFAULT_WINDOW_GROW_FROM; // the default's (a fixed share ignores it)
        } else if (from.equalsIgnoreCase("never")) {
            growFrom = FusedJacapScorer.WindowLead.NEVER;
        } else {
            try {
                growFrom = Integer.parseInt(from);
            } catch (NumberFormatException e) {
                throw new JacapException("parameter 'window_grow_from' of '" + s.text
                        + "' must be an integer or 'never', got '" + from + "'");
            }
        }
        return new FusedJacapScorer.WindowLead(share, queries, longShare, growFrom);
    }

    /**
     * The fused scorer's long-context regime: {@code long_from=N|never} (default never), with
     * {@code long_window} and {@code long_reserve} ({@link FusedJacapScorer#DEFAULT_LONG_CONTEXT}'s
     * unless given).
     */
    private static FusedJacapScorer.LongContext longContext(Spec s) {
        FusedJacapScorer.LongContext d = FusedJacapScorer.DEFAULT_LONG_CONTEXT;
        String from = s.take("long_from");
        if (from == null || from.equalsIgnoreCase("never")) {
            if (s.take("long_window") != null || s.take("long_reserve") != null) {
                throw new JacapException("'" + s.text + "': long_window and long_reserve need long_from=N");
            }
            return null;
        }
        int window = (int) s.integer(d.window(), "long_window");
        int reserve = s.count(d.reserve(), FusedJacapScorer.UNBOUNDED, "long_reserve");
        try {
            return new FusedJacapScorer.LongContext(Integer.parseInt(from), window, reserve);
        } catch (NumberFormatException e) {
            throw new JacapException(
                    "parameter 'long_from' of '" + s.text + "' must be an integer or 'never', got '" + from + "'");
        }
    }

    /** The entry of {@code registry} that {@code key} names (default {@code fallback}), built from the spec. */
    private static KvScorer pick(List<Entry> registry, String fallback, Spec s, String key) {
        String name = s.choice(fallback, names(registry), key);
        return registry.stream()
                .filter(e -> e.name().equals(name))
                .findFirst()
                .orElseThrow()
                .factory()
                .apply(s);
    }

    private static List<String> names(List<Entry> registry) {
        return registry.stream().map(Entry::name).toList();
    }

    private static CapacityAblation ablation(Spec s) {
        CapacityAblation d = CapacityAblation.DEFAULT;
        return new CapacityAblation(
                s.real(d.ridge(), "ridge"),
                GroupReduction.valueOf(
                        s.choice("mean", List.of("mean", "max"), "group").toUpperCase(Locale.ROOT)),
                s.bool(d.includeSinks(), "include_sinks"),
                LeverageSolver.valueOf(s.choice("cholesky", List.of("cholesky", "qr"), "solver")
                        .toUpperCase(Locale.ROOT)));
    }

    /** A parsed {@code name:key=value,...}; remembers which keys the caller asked for. */
    private static final class Spec {
        final String name;
        final String text;
        final Map<String, String> values = new LinkedHashMap<>();
        final Set<String> known = new LinkedHashSet<>();

        private Spec(String name, String text) {
            this.name = name;
            this.text = text;
        }

        static Spec parse(String text) {
            if (text == null || text.isBlank()) {
                throw new JacapException("empty KV policy spec");
            }
            String t = text.strip();
            int colon = t.indexOf(':');
            Spec s = new Spec((colon < 0 ? t : t.substring(0, colon)).strip().toLowerCase(Locale.ROOT), t);
            if (colon >= 0 && !t.substring(colon + 1).isBlank()) {
                for (String pair : t.substring(colon + 1).split(",")) {
                    int eq = pair.indexOf('=');
                    if (eq <= 0) {
                        throw new JacapException(
                                "bad parameter '" + pair.strip() + "' in '" + t + "': expected key=value");
                    }
                    String key = pair.substring(0, eq)
                            .strip()
                            .toLowerCase(Locale.ROOT)
                            .replace('-', '_');
                    if (s.values.put(key, pair.substring(eq + 1).strip()) != null) {
                        throw new JacapException("parameter '" + key + "' given twice in '" + t + "'");
                    }
                }
            }
            return s;
        }

        private String take(String... keys) {
            known.add(keys[0]);
            String found = null;
            for (String k : keys) {
                String v = values.remove(k);
                if (v != null) {
                    if (found != null) {
                        throw new JacapException("parameter '" + keys[0] + "' given twice in '" + text + "'");
                    }
                    found = v;
                }
            }
            return found;
        }

        long integer(long fallback, String... keys) {
            String v = take(keys);
            if (v == null) {
                return fallback;
            }
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new JacapException(
                        "parameter '" + keys[0] + "' of '" + text + "' must be an integer, got '" + v + "'");
            }
        }

        double real(double fallback, String... keys) {
            String v = take(keys);
            if (v == null) {
                return fallback;
            }
            try {
                double x = Double.parseDouble(v);
                if (!Double.isFinite(x)) {
                    throw new NumberFormatException();
                }
                return x;
            } catch (NumberFormatException e) {
                throw new JacapException(
                        "parameter '" + keys[0] + "' of '" + text + "' must be a number, got '" + v + "'");
            }
        }

        /**
         * A count of entries, or {@code all} for {@code whenAll}; values beyond an int clamp (a negative
         * one to -1, for the caller's range check).
         */
        int count(int fallback, int whenAll, String... keys) {
            String v = take(keys);
            if (v == null) {
                return fallback;
            }
            if (v.equalsIgnoreCase("all")) {
                return whenAll;
            }
            try {
                return (int) Math.max(-1, Math.min(Integer.MAX_VALUE, Long.parseLong(v)));
            } catch (NumberFormatException e) {
                throw new JacapException(
                        "parameter '" + keys[0] + "' of '" + text + "' must be an integer or 'all', got '" + v + "'");
            }
        }

        boolean bool(boolean fallback, String... keys) {
            String v = take(keys);
            if (v == null) {
                return fallback;
            }
            return switch (v.toLowerCase(Locale.ROOT)) {
                case "true", "yes", "1" -> true;
                case "false", "no", "0" -> false;
                default ->
                    throw new JacapException(
                            "parameter '" + keys[0] + "' of '" + text + "' must be true or false, got '" + v + "'");
            };
        }

        String choice(String fallback, List<String> allowed, String... keys) {
            String v = take(keys);
            if (v == null) {
                return fallback;
            }
            String lower = v.toLowerCase(Locale.ROOT);
            if (!allowed.contains(lower)) {
                throw new JacapException("parameter '" + keys[0] + "' of '" + text + "' must be one of "
                        + String.join(", ", allowed) + ", got '" + v + "'");
            }
            return lower;
        }

        void requireAllUsed() {
            if (!values.isEmpty()) {
                throw new JacapException("unknown parameter(s) " + values.keySet() + " for '" + name + "'; valid: "
                        + (known.isEmpty() ? "none" : String.join(", ", known)));
            }
        }
    }
}

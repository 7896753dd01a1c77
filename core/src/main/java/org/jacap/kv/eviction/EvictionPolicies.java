package org.jacap.kv.eviction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jacap.JacapException;

/**
 * The policy registry: parses {@code name[:key=value,...]} specs, e.g. {@code capkv},
 * {@code jacap-paper:tau=20,normalize=false}, {@code jacap:relevance=tova,share=0.75},
 * {@code snapkv:window=32}, {@code pyramid:beta=20}.
 * Every evicting scorer also takes {@code protect_sinks=S,protect_recent=R} (see {@link ProtectedScorer}).
 * Unknown names and keys fail with a message listing the valid ones.
 */
public final class EvictionPolicies {
    /** Scorer names, as the CLI's {@code --kv-policy} takes them. */
    public static final List<String> SCORERS = List.of(
            "none",
            "random",
            "streaming",
            "knorm",
            "keydiff",
            "snapkv",
            "tova",
            "h2o",
            "expected",
            "capkv",
            "jacap",
            "jacap-paper",
            "jacap-literal",
            "greedy");
    /** Allocator names, as the CLI's {@code --kv-allocator} takes them. */
    public static final List<String> ALLOCATORS = List.of("uniform", "pyramid", "ada");

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

    public static EvictionPolicy policy(String scorerSpec, String allocatorSpec) {
        return new EvictionPolicy(scorer(scorerSpec), allocator(allocatorSpec));
    }

    public static KvScorer scorer(String spec) {
        Spec s = Spec.parse(spec);
        long protectSinks = s.integer(-1, "protect_sinks");
        long protectRecent = s.integer(-1, "protect_recent");
        KvScorer scorer = switch (s.name) {
            case "none" -> new KeepAllScorer();
            case "random" -> new RandomScorer(s.integer(RandomScorer.DEFAULT_SEED, "seed"));
            case "streaming", "streaming_llm" ->
                new StreamingScorer((int) s.integer(StreamingScorer.DEFAULT_SINKS, "n_sink", "sinks"));
            case "knorm" -> new KeyNormScorer();
            case "keydiff" -> new KeyDiffScorer(s.real(1e-12, "normalize_eps"), s.real(1e-8, "cosine_eps"));
            case "snapkv" ->
                new SnapKvScorer((int) s.integer(SnapKvScorer.DEFAULT_WINDOW, "window_size", "window"), (int)
                        s.integer(SnapKvScorer.DEFAULT_KERNEL, "kernel_size", "kernel"));
            case "tova" -> new TovaScorer();
            case "h2o", "observed_attention", "observed" -> new ObservedAttentionScorer();
            case "expected", "expected_attention" -> {
                ExpectedAttentionScorer d = ExpectedAttentionScorer.defaults();
                yield new ExpectedAttentionScorer(
                        (int) s.integer(d.nSink(), "n_sink", "sinks"),
                        s.real(d.epsilon(), "epsilon", "eps"),
                        s.bool(d.useVnorm(), "use_vnorm", "vnorm"),
                        s.bool(d.useCovariance(), "use_covariance", "covariance"));
            }
            case "capkv" -> {
                CapKvScorer d = CapKvScorer.defaults();
                yield new CapKvScorer(
                        (int) s.integer(d.nSink(), "n_sink", "sinks"),
                        s.real(d.tau(), "tau"),
                        s.real(d.epsilon(), "epsilon", "eps"),
                        s.real(d.sinkBonus(), "sink_bonus"),
                        ablation(s));
            }
            case "jacap" -> {
                FusedJacapScorer d = FusedJacapScorer.defaults();
                yield new FusedJacapScorer(
                        relevance(
                                s.choice(d.relevance().name(), List.of("snapkv", "tova", "h2o", "none"), "relevance"),
                                (int) s.integer(32, "window")),
                        capacity(s.choice(d.capacity().name(), List.of("jacap-paper", "capkv", "none"), "capacity")),
                        s.real(d.share(), "share"),
                        (int) s.integer(d.sinks(), "sinks", "n_sink"),
                        (int) s.integer(d.recent(), "recent"));
            }
            case "jacap-paper", "jacap_paper", "jacap-literal", "jacap_literal" -> {
                JacapScorer d = s.name.startsWith("jacap-paper") || s.name.equals("jacap_paper")
                        ? JacapScorer.defaults()
                        : JacapScorer.literal();
                yield new JacapScorer(
                        (int) s.integer(d.nSink(), "n_sink", "sinks"),
                        s.real(d.tau(), "tau"),
                        s.real(d.epsilon(), "epsilon", "eps"),
                        s.bool(d.normalize(), "normalize"),
                        s.bool(d.divideByD(), "divide_by_d"),
                        s.choice("diagonal", List.of("diagonal", "full"), "covariance")
                                .equals("full"),
                        s.real(d.sinkBonus(), "sink_bonus"),
                        ablation(s));
            }
            case "greedy" ->
                new GreedyLogDetScorer(
                        s.choice("jacap-paper", List.of("capkv", "jacap-paper", "jacap"), "weights")
                                        .equals("capkv")
                                ? CapKvScorer.defaults()
                                : JacapScorer.defaults(),
                        (int) s.integer(Integer.MAX_VALUE, "max_picks"));
            default ->
                throw new JacapException(
                        "unknown KV eviction policy '" + s.name + "'; valid: " + String.join(", ", SCORERS));
        };
        s.requireAllUsed();
        if (protectSinks >= 0 || protectRecent >= 0) {
            scorer = new ProtectedScorer(scorer, (int) Math.max(0, protectSinks), (int) Math.max(0, protectRecent));
        }
        return scorer;
    }

    public static BudgetAllocator allocator(String spec) {
        Spec s = Spec.parse(spec);
        BudgetAllocator allocator = switch (s.name) {
            case "uniform" -> new UniformAllocator();
            case "pyramid", "pyramidkv" ->
                new PyramidKvAllocator(
                        (int) s.integer(PyramidKvAllocator.DEFAULT_WINDOW, "window_size", "window"),
                        s.real(PyramidKvAllocator.DEFAULT_BETA, "beta"));
            case "ada", "adakv" -> new AdaKvAllocator(s.real(AdaKvAllocator.DEFAULT_ALPHA, "alpha", "alpha_safeguard"));
            default ->
                throw new JacapException(
                        "unknown KV budget allocator '" + s.name + "'; valid: " + String.join(", ", ALLOCATORS));
        };
        s.requireAllUsed();
        return allocator;
    }

    private static KvScorer relevance(String name, int window) {
        return switch (name) {
            case "snapkv" -> new SnapKvScorer(window, SnapKvScorer.DEFAULT_KERNEL);
            case "tova" -> new TovaScorer();
            case "h2o" -> new ObservedAttentionScorer();
            default -> null;
        };
    }

    private static KvScorer capacity(String name) {
        return switch (name) {
            case "jacap-paper" -> JacapScorer.defaults();
            case "capkv" -> CapKvScorer.defaults();
            default -> null;
        };
    }

    private static CapacityAblation ablation(Spec s) {
        CapacityAblation d = CapacityAblation.DEFAULT;
        return new CapacityAblation(
                s.real(d.ridge(), "ridge"),
                GroupReduction.valueOf(
                        s.choice("mean", List.of("mean", "max"), "group").toUpperCase(Locale.ROOT)),
                s.bool(d.includeSinks(), "include_sinks"));
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

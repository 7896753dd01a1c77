package org.jacap.bench.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jacap.JacapException;
import org.jacap.kv.eviction.EvictionPolicies;
import org.jacap.kv.eviction.EvictionPolicy;
import org.jacap.kv.eviction.FutureAttentionOracle;
import org.jacap.kv.eviction.FutureAttentionOracle.FutureAttentionMass;
import org.jacap.kv.eviction.KeepAllScorer;
import org.jacap.kv.eviction.KvScorer;
import org.jacap.kv.eviction.ProtectedScorer;
import org.jacap.kv.eviction.StatisticsSpec;

/**
 * A policy as the evaluation runs it: the name of its row, what the shared prefill must gather
 * for it, and its scorer for one document (the oracle's depends on that document's reference run).
 * Every policy runs with its scorer's own allocator: the same budget for every (layer, KV head),
 * but for {@code jacap} ({@code heads=capacity}) and {@code jacap:heads=attention}, whose KV heads
 * share their layer's (AdaKV; decode mode's budget makes them even, as the engine does).
 */
public record EvalPolicy(String name, StatisticsSpec statistics, Function<FutureAttentionMass, KvScorer> scorer) {
    public static final String ORACLE = "oracle";

    /** The eviction policy for one document, with the shared protection when one is given. */
    public EvictionPolicy forDocument(FutureAttentionMass referenceAttention, Protection protection) {
        KvScorer s = scorer.apply(referenceAttention);
        if (protection.sinks() + protection.recent() > 0) {
            s = new ProtectedScorer(s, protection.sinks(), protection.recent());
        }
        return new EvictionPolicy(s, s.allocator());
    }

    /** One policy: {@code oracle}, or a scorer spec of the eviction registry ({@code snapkv:window=32}). */
    public static EvalPolicy parse(String spec) {
        String text = spec.strip();
        if (text.equalsIgnoreCase(ORACLE)) {
            return new EvalPolicy(ORACLE, StatisticsSpec.NOTHING, FutureAttentionOracle::new);
        }
        KvScorer s = EvictionPolicies.scorer(text);
        if (s instanceof KeepAllScorer) {
            throw new JacapException("'" + text + "' keeps every entry; the full cache is already the reference row");
        }
        return new EvalPolicy(text, s.statistics(), mass -> s);
    }

    /**
     * A comma-separated list: {@code all} (every registry scorer, then the oracle), names and specs.
     * A {@code key=value} item without a name continues the previous spec, so
     * {@code snapkv:window=32,kernel=5,capkv} is two policies.
     */
    public static List<EvalPolicy> parseList(String list) {
        List<EvalPolicy> policies = new ArrayList<>();
        for (String s : EvictionPolicies.splitSpecs(list)) {
            if (s.equalsIgnoreCase("all")) {
                for (String name : EvictionPolicies.SCORERS) {
                    if (!name.equals("none")) {
                        policies.add(parse(name));
                    }
                }
                policies.add(parse(ORACLE));
            } else {
                policies.add(parse(s));
            }
        }
        if (policies.isEmpty()) {
            throw new JacapException("no policies given");
        }
        List<String> names = new ArrayList<>();
        for (EvalPolicy p : policies) {
            if (names.contains(p.name())) {
                throw new JacapException("policy '" + p.name() + "' given twice");
            }
            names.add(p.name());
        }
        return policies;
    }
}

package org.jacap.kv.eviction;

import java.util.Locale;
import org.jacap.JacapException;

/**
 * When and how much a running model evicts (see {@link EvictionSchedule}).
 *
 * @param policy          scorer and budget allocator
 * @param ratio           compression ratio applied after every prompt, in [0, 1): each KV head
 *                        keeps {@code (int)(n(1 − ratio))} of its n entries; 0 = none
 * @param budget          entries each (layer, KV head) is held to, prompt and decoding alike, so
 *                        memory stays bounded whatever the context; 0 = unbounded. With a ratio as
 *                        well, the prompt keeps {@code min((int)(n(1 − ratio)), budget)}
 * @param slack           with a budget: entries a head may grow past it before the next eviction
 *                        event (and the prompt chunk size once the cache is full)
 * @param momentWindow    decoding events compute the query moments over the last ≤ this many
 *                        queries (kvpress DecodingPress buffer, 256)
 * @param futurePositions R̄ averages the RoPE over this many positions from the next one (512)
 */
public record EvictionSettings(
        EvictionPolicy policy, double ratio, int budget, int slack, int momentWindow, int futurePositions) {
    public static final int DEFAULT_MOMENT_WINDOW = 256;
    public static final int MIN_SLACK = 16;

    public EvictionSettings {
        if (policy == null) {
            throw new JacapException("an eviction policy is required");
        }
        if (!(ratio >= 0 && ratio < 1)) {
            throw new JacapException("--kv-ratio must be in [0, 1), got " + ratio);
        }
        if (budget < 0) {
            throw new JacapException("--kv-budget must be >= 1, got " + budget);
        }
        if (budget > 0 && slack < 1) {
            throw new JacapException("--kv-slack must be >= 1, got " + slack);
        }
        if (budget > 0 && (long) budget + slack > Integer.MAX_VALUE / 4) {
            throw new JacapException("--kv-budget " + budget + " + slack " + slack + " is too large");
        }
        if (momentWindow < 1) {
            throw new JacapException("moment window must be >= 1, got " + momentWindow);
        }
        if (futurePositions < 1) {
            throw new JacapException("future positions must be >= 1, got " + futurePositions);
        }
    }

    /** Compress each prompt by {@code ratio}; decoding appends without eviction. */
    public static EvictionSettings ratio(EvictionPolicy policy, double ratio) {
        return new EvictionSettings(
                policy, ratio, 0, 0, DEFAULT_MOMENT_WINDOW, AveragedRotation.DEFAULT_FUTURE_POSITIONS);
    }

    /** Hold every head to {@code budget} entries (+ the default slack) at all times. */
    public static EvictionSettings budget(EvictionPolicy policy, int budget) {
        if (budget < 1) {
            throw new JacapException("--kv-budget must be >= 1, got " + budget);
        }
        return new EvictionSettings(
                policy,
                0,
                budget,
                defaultSlack(budget),
                DEFAULT_MOMENT_WINDOW,
                AveragedRotation.DEFAULT_FUTURE_POSITIONS);
    }

    /** {@code max(16, budget / 8)}: events every ≥ 16 tokens, and ≤ 12.5 % memory above the budget. */
    public static int defaultSlack(int budget) {
        return Math.max(MIN_SLACK, budget / 8);
    }

    /**
     * From command-line style options; null means "not given". Every inconsistent combination
     * fails with one line naming the flag.
     *
     * @param policySpec    {@code --kv-policy NAME[:k=v,...]}; null or {@code none} for no eviction (returns null)
     * @param allocatorSpec {@code --kv-allocator}, default uniform
     * @param protect       {@code --kv-protect SINKS,RECENT}: the same protection for any policy
     */
    public static EvictionSettings parse(
            String policySpec, String allocatorSpec, Double ratio, Integer budget, Integer slack, String protect) {
        boolean none = policySpec == null
                || policySpec.strip().toLowerCase(Locale.ROOT).equals("none");
        if (none) {
            String given = ratio != null
                    ? "--kv-ratio"
                    : budget != null
                            ? "--kv-budget"
                            : slack != null
                                    ? "--kv-slack"
                                    : protect != null
                                            ? "--kv-protect"
                                            : allocatorSpec != null ? "--kv-allocator" : null;
            if (given != null) {
                throw new JacapException(given + " needs an evicting --kv-policy (one of "
                        + String.join(", ", EvictionPolicies.SCORERS.subList(1, EvictionPolicies.SCORERS.size()))
                        + ")");
            }
            return null;
        }
        if (ratio == null && budget == null) {
            throw new JacapException("--kv-policy " + policySpec.strip() + " needs --kv-ratio R (compress the prompt)"
                    + " or --kv-budget N (entries kept per layer and KV head)");
        }
        if (ratio != null && !(ratio >= 0 && ratio < 1)) {
            throw new JacapException("--kv-ratio must be in [0, 1), got " + ratio);
        }
        if (budget != null && budget < 1) {
            throw new JacapException("--kv-budget must be >= 1, got " + budget);
        }
        if (slack != null && budget == null) {
            throw new JacapException("--kv-slack needs --kv-budget (a ratio alone does not evict while decoding)");
        }
        if (slack != null && slack < 1) {
            throw new JacapException("--kv-slack must be >= 1, got " + slack);
        }
        String spec = policySpec.strip();
        if (protect != null) {
            spec = withProtection(spec, protect);
        }
        EvictionPolicy policy = EvictionPolicies.policy(spec, allocatorSpec == null ? "uniform" : allocatorSpec);
        int b = budget == null ? 0 : budget;
        int s = b == 0 ? 0 : slack != null ? slack : defaultSlack(b);
        return new EvictionSettings(
                policy,
                ratio == null ? 0 : ratio,
                b,
                s,
                DEFAULT_MOMENT_WINDOW,
                AveragedRotation.DEFAULT_FUTURE_POSITIONS);
    }

    /** {@code SINKS,RECENT} → {@code protect_sinks=SINKS,protect_recent=RECENT} appended to the spec. */
    private static String withProtection(String spec, String protect) {
        String[] parts = protect.split(",", -1);
        if (parts.length != 2) {
            throw new JacapException("--kv-protect must be SINKS,RECENT (two counts), got '" + protect + "'");
        }
        int[] n = new int[2];
        for (int i = 0; i < 2; i++) {
            try {
                n[i] = Integer.parseInt(parts[i].strip());
            } catch (NumberFormatException e) {
                throw new JacapException("--kv-protect must be SINKS,RECENT (two counts), got '" + protect + "'");
            }
            if (n[i] < 0) {
                throw new JacapException("--kv-protect counts must be >= 0, got '" + protect + "'");
            }
        }
        if (spec.toLowerCase(Locale.ROOT).contains("protect_")) {
            throw new JacapException("--kv-protect and the policy's own protect_sinks/protect_recent parameters"
                    + " both set the protection; give one of them");
        }
        String params = "protect_sinks=" + n[0] + ",protect_recent=" + n[1];
        int colon = spec.indexOf(':');
        boolean hasParams = colon >= 0 && !spec.substring(colon + 1).isBlank();
        return colon < 0 ? spec + ":" + params : spec + (hasParams ? "," : "") + params;
    }

    public boolean bounded() {
        return budget > 0;
    }

    /**
     * What a prompt is compressed to at its end. Without a budget: the ratio of each head's
     * entries. With one: {@code min((int)(n(1 − ratio)), budget)}, where n counts every entry the
     * head would hold had the prompt's chunks not been evicted ({@code uncompressedLength}).
     */
    public Budget promptBudget(long uncompressedLength) {
        if (budget == 0) {
            return Budget.ratio(ratio);
        }
        long n = Math.min(uncompressedLength, Integer.MAX_VALUE);
        return Budget.kept(Math.min((int) (n * (1.0 - ratio)), budget));
    }

    /** What decoding events and full-cache prompt chunks compress to. */
    public Budget decodeBudget() {
        return Budget.kept(budget);
    }

    /**
     * The most entries a KV head may hold: the allocator's largest per-head share of the budget
     * plus the slack. The cache is allocated up to this and never beyond.
     */
    public int headCapacity(int kvHeads) {
        if (budget == 0) {
            throw new JacapException("an unbounded eviction setting has no head capacity");
        }
        return policy.allocator().maxKeptPerHead(budget, kvHeads) + slack;
    }

    /** E.g. {@code jacap-paper:n_sink=4,tau=10.0,... / uniform, budget 128 + slack 16}. */
    public String describe() {
        StringBuilder b = new StringBuilder(policy.describe());
        if (ratio > 0) {
            b.append(", ratio ").append(ratio);
        }
        if (budget > 0) {
            b.append(", budget ").append(budget).append(" + slack ").append(slack);
        }
        return b.toString();
    }
}

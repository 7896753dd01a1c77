package org.jacap.kv.eviction;

import org.jacap.JacapException;

/**
 * When and how much a running model evicts (see {@link EvictionSchedule}).
 *
 * @param policy          scorer and budget allocator; with a budget, its budget form
 *                        ({@link EvictionPolicy#underBudget}: for {@code jacap} the same count per
 *                        KV head and {@code budget_reserve}, which budgeted decoding measured best)
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
            throw new JacapException("the compression ratio must be in [0, 1), got " + ratio);
        }
        if (budget < 0) {
            throw new JacapException("the eviction budget must be >= 1, got " + budget);
        }
        if (budget > 0 && slack < 1) {
            throw new JacapException("the eviction slack must be >= 1, got " + slack);
        }
        if (budget > 0 && (long) budget + slack > Integer.MAX_VALUE / 4) {
            throw new JacapException("eviction budget " + budget + " + slack " + slack + " is too large");
        }
        if (momentWindow < 1) {
            throw new JacapException("moment window must be >= 1, got " + momentWindow);
        }
        if (futurePositions < 1) {
            throw new JacapException("future positions must be >= 1, got " + futurePositions);
        }
        if (budget > 0) {
            policy = policy.underBudget();
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
            throw new JacapException("the eviction budget must be >= 1, got " + budget);
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
     * Settings from their four free values (moment window and R̄ horizon at their defaults).
     *
     * @param budget 0 for none (then {@code slack} must be 0 too)
     * @throws JacapException for a value out of range
     */
    public static EvictionSettings of(EvictionPolicy policy, double ratio, int budget, int slack) {
        return new EvictionSettings(
                policy, ratio, budget, slack, DEFAULT_MOMENT_WINDOW, AveragedRotation.DEFAULT_FUTURE_POSITIONS);
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

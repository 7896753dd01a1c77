package org.jacap.cli;

import java.util.Locale;
import org.jacap.JacapException;
import org.jacap.kv.eviction.EvictionPolicies;
import org.jacap.kv.eviction.EvictionPolicy;
import org.jacap.kv.eviction.EvictionSettings;

/** The {@code --kv-*} flags into {@link EvictionSettings}: every inconsistent combination is one line naming the flag. */
final class KvFlags {
    private KvFlags() {}

    /**
     * Null means "not given".
     *
     * @param policySpec    {@code --kv-policy NAME[:k=v,...]}; null or {@code none} for no eviction (returns null)
     * @param allocatorSpec {@code --kv-allocator}, default the scorer's own (uniform but for {@code jacap}'s head shares, which a budget makes uniform too)
     * @param protect       {@code --kv-protect SINKS,RECENT}: the same protection for any policy
     * @throws JacapException with the flag's name in the message
     */
    static EvictionSettings parse(
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
        EvictionPolicy policy = allocatorSpec == null
                ? EvictionPolicies.policy(spec) // the allocator the scorer's scores are made for
                : EvictionPolicies.policy(spec, allocatorSpec);
        int b = budget == null ? 0 : budget;
        int s = b == 0 ? 0 : slack != null ? slack : EvictionSettings.defaultSlack(b);
        if (b > 0 && (long) b + s > Integer.MAX_VALUE / 4) {
            throw new JacapException("--kv-budget " + b + " + slack " + s + " is too large");
        }
        return EvictionSettings.of(policy, ratio == null ? 0 : ratio, b, s);
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
}

/**
 * KV-cache eviction: scorers (which cache entries matter), budget allocators (how many each
 * KV head keeps) and the query statistics the forward pass gathers for them. The mathematics of
 * every policy is in {@code docs/eviction-spec.md}; the exact conventions (kept counts, protected
 * priority, tie-breaking) in the fixture README.
 *
 * <p>Engine use, per layer:
 * <pre>{@code
 * EvictionPolicy policy = EvictionPolicies.policy("capkv", "uniform");        // --kv-policy, --kv-allocator
 * QueryStatistics stats = new QueryStatistics(shape, policy.statistics());  // before prefill
 * // forward pass, for every token t and query head h (float rows are fine):
 * stats.observePreRope(h, position, qPre, off);      // after q_norm, before RoPE
 * stats.observePostRope(h, position, q, off);        // as used in attention
 * stats.observeAttention(h, probs, off, visible);     // the softmax row over the head's entries
 * // eviction event (after prefill, or every N decoded tokens):
 * AveragedRotation rbar = AveragedRotation.overPositions(layout, invFreq, nextPosition, 512); // once, all layers
 * KvHeadRows[] heads = ...KvHeadRows.copyOf(keys, values, positions, len, d) per KV head...;
 * KeptEntries kept = policy.select(new LayerSnapshot(layer, layers, shape, heads, rbar, stats), budget);
 * // per KV head g: KeptEntries.compactRows(keys, d, kept.kept(g)); same for values;
 * // KeptEntries.compact(positions, kept.kept(g)); stats.retainEntries(g, kept.kept(g));
 * }</pre>
 * Every {@code observe} call returns at once when the policy does not need that statistic.
 * Scorers are stateless records; layers may be scored concurrently.
 */
package org.jacap.kv.eviction;

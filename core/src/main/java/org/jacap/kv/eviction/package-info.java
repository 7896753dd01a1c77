/**
 * KV-cache eviction: scorers (which cache entries matter), budget allocators (how many each
 * KV head keeps), the query statistics the forward pass gathers for them, and the controllers
 * that run them on a model. The mathematics of every policy is in {@code docs/eviction-spec.md};
 * the exact conventions (kept counts, protected priority, tie-breaking) in the fixture README.
 *
 * <p><b>Running model, when eviction runs</b> ({@link org.jacap.kv.eviction.EvictionSchedule};
 * the engine's {@code EvictionMode.Evict} and {@code jacap run --kv-policy} use it):
 * <pre>{@code
 * EvictionSettings s = EvictionSettings.budget(EvictionPolicies.policy("jacap", "uniform"), 1024);
 * InferenceState st = EvictionSchedule.newState(model, s, ctx);   // cache sized for budget + slack
 * EvictionSchedule kv = new EvictionSchedule(model, st, s, ctx);  // installs the observer
 * float[] logits = kv.prompt(ids, 0, ids.length);                  // chunks, events, compression
 * logits = kv.decode(next);                                        // budgeted decoding
 * }</pre>
 *
 * <p><b>One compression after a prefill</b> (evaluation harnesses; {@link org.jacap.kv.eviction.KvCompressor}):
 * <pre>{@code
 * KvCompressor.observe(model, st, policy.statistics());           // before the prompt
 * model.forward(st, ids, 0, ids.length, false);
 * CompressionResult r = KvCompressor.compress(model, st, policy, Budget.ratio(0.75));
 * }</pre>
 *
 * <p><b>By hand, per layer</b> (what the two above do):
 * <pre>{@code
 * QueryStatistics stats = new QueryStatistics(shape, policy.statistics());  // before prefill
 * stats.observePreRope(h, position, qPre, off);      // after q_norm, before RoPE
 * stats.observePostRope(h, position, q, off);        // as used in attention
 * stats.observeAttention(h, probs, off, visible);     // the softmax row over the head's entries
 * AveragedRotation rbar = geometry.futureRotation(nextPosition, 512);  // the layer's own RoPE
 * double[] energy = geometry.outputEnergy();          // W_O's squared column norms (value-aware h2o); may be null
 * KeptEntries kept = policy.select(new LayerSnapshot(layer, layers, shape, heads, rbar, stats, energy), budget);
 * // per KV head g: cache.retain(layer, g, kept.kept(g)); stats.retainEntries(g, kept.kept(g));
 * }</pre>
 * Every {@code observe} call returns at once when the policy does not need that statistic.
 * Scorers are stateless records; layers may be scored concurrently.
 */
package org.jacap.kv.eviction;

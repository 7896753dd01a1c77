package org.jacap.kv.eviction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.jacap.JacapException;
import org.junit.jupiter.api.Test;

/** Names, parameters and error messages of the policy registry. */
class EvictionRegistryTest {

    @Test
    void everyNameParsesAndItsSpecRoundTrips() {
        for (String name : EvictionPolicies.SCORERS) {
            KvScorer scorer = EvictionPolicies.scorer(name);
            assertEquals(scorer, EvictionPolicies.scorer(scorer.spec()), name);
            assertEquals(name, scorer.name());
        }
        for (String name : EvictionPolicies.ALLOCATORS) {
            BudgetAllocator allocator = EvictionPolicies.allocator(name);
            assertEquals(allocator, EvictionPolicies.allocator(allocator.spec()), name);
            assertEquals(name, allocator.name());
        }
    }

    /**
     * Every relevance × capacity pair of the fused {@code jacap} (the lists come from its registries)
     * builds the rankings it names, prints a spec that parses back to it, and an unknown value lists
     * the valid ones.
     */
    @Test
    void everyFusedRankingPairParsesAndRoundTrips() {
        assertEquals(
                java.util.List.of("snapkv", "tova", "h2o", "jacap-observed", "none"),
                EvictionPolicies.FUSED_RELEVANCES);
        assertEquals(
                java.util.List.of("jacap-paper", "jacap-observed", "capkv", "keydiff", "expected", "none"),
                EvictionPolicies.FUSED_CAPACITIES);
        for (String relevance : EvictionPolicies.FUSED_RELEVANCES) {
            for (String capacity : EvictionPolicies.FUSED_CAPACITIES) {
                if (relevance.equals("none") && capacity.equals("none")) {
                    continue; // nothing to rank by
                }
                String spec = "jacap:relevance=" + relevance + ",capacity=" + capacity;
                FusedJacapScorer f = (FusedJacapScorer) EvictionPolicies.scorer(spec);
                assertEquals(
                        relevance,
                        f.relevance() == null ? "none" : f.relevance().name(),
                        spec);
                assertEquals(
                        capacity, f.capacity() == null ? "none" : f.capacity().name(), spec);
                assertEquals(f, EvictionPolicies.scorer(f.spec()), spec);
            }
        }
        JacapException e = assertThrows(JacapException.class, () -> EvictionPolicies.scorer("jacap:capacity=tova"));
        assertTrue(
                e.getMessage().contains("jacap-paper, jacap-observed, capkv, keydiff, expected, none"), e.getMessage());
        e = assertThrows(JacapException.class, () -> EvictionPolicies.scorer("greedy:weights=knorm"));
        assertTrue(e.getMessage().contains("jacap-paper, capkv, jacap"), e.getMessage());
        assertEquals(
                "capkv",
                ((GreedyLogDetScorer) EvictionPolicies.scorer("greedy:weights=capkv"))
                        .weights()
                        .name());
    }

    @Test
    void defaultsAreTheSpecDefaults() {
        assertEquals(new CapKvScorer(4, 5.0, 1e-6, 1.0), EvictionPolicies.scorer("capkv"));
        assertEquals(new JacapScorer(4, 10.0, 1e-6, true, true, 1.0), EvictionPolicies.scorer("jacap-paper"));
        assertEquals(new JacapScorer(4, 10.0, 1e-6, false, true, 1.0), EvictionPolicies.scorer("jacap-literal"));
        assertEquals(new ExpectedAttentionScorer(4, 0.01, true, true), EvictionPolicies.scorer("expected"));
        assertEquals(new SnapKvScorer(64, 5), EvictionPolicies.scorer("snapkv"));
        assertEquals(new PyramidKvAllocator(64, 20), EvictionPolicies.allocator("pyramid"));
        assertEquals(new AdaKvAllocator(0.2), EvictionPolicies.allocator("ada"));
    }

    @Test
    void parametersAndAliases() {
        assertEquals(
                new JacapScorer(4, 20.0, 1e-6, false, true, 1.0),
                EvictionPolicies.scorer("jacap-paper:tau=20,normalize=false"));
        assertEquals(new SnapKvScorer(32, 5), EvictionPolicies.scorer("snapkv:window=32"));
        assertEquals(new SnapKvScorer(16, 7), EvictionPolicies.scorer(" SnapKV : window_size = 16 , kernel-size=7 "));
        assertEquals(new RandomScorer(42), EvictionPolicies.scorer("random:seed=42"));
        assertEquals(new ObservedAttentionScorer(), EvictionPolicies.scorer("observed_attention"));
        assertEquals(new AdaKvAllocator(0.3), EvictionPolicies.allocator("adakv:alpha_safeguard=0.3"));
        EvictionPolicy p = EvictionPolicies.policy("h2o", "pyramid:beta=4");
        assertTrue(p.evicts());
        assertEquals("h2o / pyramid:window_size=64,beta=4.0", p.describe());
        assertFalse(EvictionPolicies.policy("none", "uniform").evicts());
    }

    @Test
    void listsSplitAtCommasAndKeyValueItemsContinueTheirSpec() {
        assertEquals(
                java.util.List.of("snapkv:window=32,kernel=5", "capkv", "jacap:tau=20"),
                EvictionPolicies.splitSpecs(" snapkv:window=32, kernel=5,,capkv,jacap:tau=20 "));
        assertEquals(
                java.util.List.of("tau=5", "knorm"), EvictionPolicies.splitSpecs("tau=5,knorm")); // nothing to continue
        assertTrue(EvictionPolicies.splitSpecs(" , ").isEmpty());
    }

    @Test
    void unknownNamesListTheValidOnes() {
        JacapException e = assertThrows(JacapException.class, () -> EvictionPolicies.scorer("snapvk"));
        for (String name : EvictionPolicies.SCORERS) {
            assertTrue(e.getMessage().contains(name), e.getMessage());
        }
        JacapException a = assertThrows(JacapException.class, () -> EvictionPolicies.allocator("pyramids"));
        assertTrue(a.getMessage().contains("uniform, pyramid, ada"), a.getMessage());
    }

    @Test
    void badParametersFailClearly() {
        JacapException key = assertThrows(JacapException.class, () -> EvictionPolicies.scorer("capkv:temperature=3"));
        assertTrue(key.getMessage().contains("temperature") && key.getMessage().contains("tau"), key.getMessage());
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer("capkv:tau=hot"));
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer("jacap-paper:normalize=maybe"));
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer("snapkv:window=4,window_size=8"));
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer("snapkv:kernel=4"));
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer("knorm:x"));
        assertThrows(JacapException.class, () -> EvictionPolicies.scorer(""));
        assertThrows(JacapException.class, () -> Budget.ratio(1.5));
    }
}

package org.jacap.kv.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import java.util.Arrays;
import java.util.stream.IntStream;
import org.jacap.JacapException;
import org.jacap.kv.eviction.math.TopK;
import org.junit.jupiter.api.Test;

/** The default jacap's rank fusion: what each budget keeps, from one scoring. */
class FusedJacapScorerTest {
    private final SyntheticLayer layer = new SyntheticLayer(11, 4, 2, 60, 8);
    private final LayerSnapshot snapshot = layer.snapshot(SyntheticLayer.everything(4, 32));
    private final KvScorer relevance = new SnapKvScorer(32, 5);
    private final KvScorer capacity = JacapScorer.defaults();

    private static int[] top(double[] scores, int k) {
        return TopK.top(scores, k);
    }

    @Test
    void aBudgetKeepsTheUnionOfBothRankingsShares() {
        double[][] rel = relevance.score(snapshot);
        double[][] cap = capacity.score(snapshot);
        double[][] fused = new FusedJacapScorer(relevance, capacity, 0.5, 0, 0).score(snapshot);
        for (int g = 0; g < 2; g++) {
            for (int k : new int[] {6, 12, 20, 30}) {
                int[] kept = top(fused[g], k);
                // every entry in the top k/2 of either ranking is kept whenever the union fits
                int[] a = top(rel[g], k / 2);
                int[] b = top(cap[g], k / 2);
                long union = IntStream.concat(Arrays.stream(a), Arrays.stream(b))
                        .distinct()
                        .count();
                if (union <= k) {
                    for (int i :
                            IntStream.concat(Arrays.stream(a), Arrays.stream(b)).toArray()) {
                        assertThat(Arrays.binarySearch(kept, i))
                                .as("k=%d entry %d", k, i)
                                .isNotNegative();
                    }
                }
            }
        }
    }

    @Test
    void shareOneIsTheRelevanceRankingAndZeroTheCapacityRanking() {
        double[][] rel = relevance.score(snapshot);
        double[][] cap = capacity.score(snapshot);
        double[][] onlyRel = new FusedJacapScorer(relevance, capacity, 1.0, 0, 0).score(snapshot);
        double[][] onlyCap = new FusedJacapScorer(relevance, capacity, 0.0, 0, 0).score(snapshot);
        for (int g = 0; g < 2; g++) {
            for (int k : new int[] {5, 17, 40}) {
                assertThat(top(onlyRel[g], k)).containsExactly(top(rel[g], k));
                assertThat(top(onlyCap[g], k)).containsExactly(top(cap[g], k));
            }
        }
    }

    @Test
    void aReserveCapsWhatCapacityAloneKeeps() {
        double[][] rel = relevance.score(snapshot);
        double[][] cap = capacity.score(snapshot);
        int reserve = 5;
        double[][] fused = new FusedJacapScorer(relevance, capacity, 0.5, 0, 0, reserve).score(snapshot);
        for (int g = 0; g < 2; g++) {
            for (int k : new int[] {4, 10, 16, 30, 45}) {
                int[] kept = top(fused[g], k);
                int[] relTop = top(rel[g], k);
                int[] capTop = top(cap[g], Math.min(reserve, k / 2));
                // what relevance would not keep is among the capacity ranking's first `reserve` entries
                int[] capFirst = top(cap[g], reserve);
                int outsideRel = 0;
                for (int i : kept) {
                    if (Arrays.binarySearch(relTop, i) < 0) {
                        assertThat(capFirst).as("k=%d entry %d", k, i).contains(i);
                        outsideRel++;
                    }
                }
                assertThat(outsideRel).isLessThanOrEqualTo(reserve);
                // and capacity's best min(reserve, k/2) are all kept
                for (int i : capTop) {
                    assertThat(kept).as("k=%d entry %d", k, i).contains(i);
                }
            }
        }
        double[][] none = new FusedJacapScorer(relevance, capacity, 0.5, 0, 0, 0).score(snapshot);
        for (int g = 0; g < 2; g++) {
            assertThat(top(none[g], 17)).containsExactly(top(rel[g], 17));
        }
    }

    @Test
    void whereTheReserveBindsTheShareDoesNotChangeWhatIsKept() {
        // 60 entries, a reserve of 5: capacity's 5 fit every budget from 5/(1 − share) up, whatever the
        // share, so the default's 0.635 keeps what 0.5 kept there and differs only below
        int reserve = 5;
        double[][] half = new FusedJacapScorer(relevance, capacity, 0.5, 0, 0, reserve).score(snapshot);
        double[][] more = new FusedJacapScorer(relevance, capacity, 0.635, 0, 0, reserve).score(snapshot);
        int differing = 0;
        for (int g = 0; g < 2; g++) {
            for (int k = 1; k <= 60; k++) {
                boolean same = Arrays.equals(top(half[g], k), top(more[g], k));
                if (k >= 2 * reserve / (1 - 0.635)) {
                    assertThat(same).as("head %d, k=%d", g, k).isTrue();
                } else if (!same) {
                    differing++;
                }
            }
        }
        assertThat(differing).isPositive();
    }

    @Test
    void sinksAndRecentEntriesComeFirst() {
        double[][] s = new FusedJacapScorer(relevance, capacity, 0.5, 4, 8).score(snapshot);
        for (double[] row : s) {
            assertThat(top(row, 12)).containsExactly(0, 1, 2, 3, 52, 53, 54, 55, 56, 57, 58, 59);
            assertThat(top(row, 6)).containsExactly(0, 1, 2, 3, 58, 59);
        }
    }

    @Test
    void aLayerAsLongAsTheLongContextIsScoredByItsRegime() {
        FusedJacapScorer.LongContext at60 = new FusedJacapScorer.LongContext(60, 32, 10);
        FusedJacapScorer h2o = new FusedJacapScorer(FusedJacapScorer.VALUE_AWARE_ATTENTION, capacity, 0.6, 4, 0, 20);
        FusedJacapScorer switching = new FusedJacapScorer(h2o.relevance(), capacity, 0.6, 4, 0, 20, at60, null);
        FusedJacapScorer window = new FusedJacapScorer(new SnapKvScorer(32, 5), capacity, 0.6, 4, 0, 10);
        assertThat(snapshot.head(0).length()).isEqualTo(60);
        assertThat(switching.score(snapshot)).isDeepEqualTo(window.score(snapshot));
        assertThat(Arrays.deepEquals(switching.score(snapshot), h2o.score(snapshot)))
                .isFalse();
        FusedJacapScorer at61 = new FusedJacapScorer(
                h2o.relevance(), capacity, 0.6, 4, 0, 20, new FusedJacapScorer.LongContext(61, 32, 10), null);
        assertThat(at61.score(snapshot)).isDeepEqualTo(h2o.score(snapshot));
        // what the forward pass gathers covers both regimes
        assertThat(switching.statistics()).isEqualTo(h2o.statistics().union(window.statistics()));
    }

    /** Three rankings: each entry's key is its best rank over its ranking's share, capacity's only inside the reserve. */
    @Test
    void aWindowLeadIsAThirdRankingWithItsOwnShare() {
        KvScorer accumulated = FusedJacapScorer.VALUE_AWARE_ATTENTION;
        FusedJacapScorer.WindowLead lead = new FusedJacapScorer.WindowLead(0.3, 16);
        FusedJacapScorer three = new FusedJacapScorer(accumulated, capacity, 0.5, 0, 0, 10, null, lead);
        double[][] rel = accumulated.score(snapshot);
        double[][] cap = capacity.score(snapshot);
        double[][] win = new SnapKvScorer(16, SnapKvScorer.DEFAULT_KERNEL).score(snapshot);
        double[][] fused = three.score(snapshot);
        for (int g = 0; g < 2; g++) {
            int n = rel[g].length;
            double[] relRank = FusedJacapScorer.ranks(rel[g], n);
            double[] capRank = FusedJacapScorer.ranks(cap[g], n);
            double[] winRank = FusedJacapScorer.ranks(win[g], n);
            for (int i = 0; i < n; i++) {
                double want = Math.min(relRank[i] / 0.5, winRank[i] / 0.3);
                if (capRank[i] < 10) {
                    want = Math.min(want, capRank[i] / (1 - 0.5 - 0.3));
                }
                assertThat(fused[g][i]).as("head %d entry %d", g, i).isEqualTo(-want);
            }
            // a budget of 20 keeps the window's best 6 (20 * 0.3), whatever the other two rank them
            assertThat(top(fused[g], 20)).contains(top(win[g], 6));
        }
        assertThat(three.statistics())
                .isEqualTo(accumulated
                        .statistics()
                        .union(capacity.statistics())
                        .union(new SnapKvScorer(16, SnapKvScorer.DEFAULT_KERNEL).statistics()));
        FusedJacapScorer none = new FusedJacapScorer(accumulated, capacity, 0.5, 0, 0, 10);
        assertThat(Arrays.deepEquals(none.score(snapshot), fused)).isFalse();
    }

    /** A long layer's window lead grows into the relevance's share; below its start nothing changes. */
    @Test
    void aGrowingWindowLeadTakesItsGrowthFromTheRelevanceShare() {
        KvScorer accumulated = FusedJacapScorer.VALUE_AWARE_ATTENTION;
        int n = snapshot.head(0).length();
        FusedJacapScorer.WindowLead fixed = new FusedJacapScorer.WindowLead(0.1, 16);
        double[][] before = new FusedJacapScorer(accumulated, capacity, 0.5, 0, 0, 10, null, fixed).score(snapshot);
        // growing from n entries on: this layer is not long yet, so the same scores to the bit
        FusedJacapScorer.WindowLead notYet = new FusedJacapScorer.WindowLead(0.1, 16, 0.5, n);
        assertThat(new FusedJacapScorer(accumulated, capacity, 0.5, 0, 0, 10, null, notYet).score(snapshot))
                .isDeepEqualTo(before);
        // each row: where the growth starts, the two shares, and the shares a fixed lead needs for the
        // same scores at n entries (binary fractions, so the same keys to the bit)
        record Case(int growFrom, double relevanceShare, double windowShare, double relevanceThen, double windowThen) {}
        assertThat(n).as("the cases' growth points").isEqualTo(60);
        for (Case c : new Case[] {
            new Case(30, 0.5, 0.125, 0.125, 0.5), // n = twice growFrom: the whole growth
            new Case(40, 0.5, 0.125, 0.3125, 0.3125), // n = 1.5 growFrom: half of it
            new Case(30, 0.25, 0.125, 0.0, 0.375), // the relevance gives what it has; capacity keeps 0.625
        }) {
            FusedJacapScorer.WindowLead growing =
                    new FusedJacapScorer.WindowLead(c.windowShare(), 16, 0.5, c.growFrom());
            double[][] grown = new FusedJacapScorer(accumulated, capacity, c.relevanceShare(), 0, 0, 10, null, growing)
                    .score(snapshot);
            FusedJacapScorer.WindowLead then = new FusedJacapScorer.WindowLead(c.windowThen(), 16);
            double[][] same = new FusedJacapScorer(accumulated, capacity, c.relevanceThen(), 0, 0, 10, null, then)
                    .score(snapshot);
            assertThat(grown).as("%s", c).isDeepEqualTo(same);
            double[][] fixedShares = new FusedJacapScorer(
                            accumulated,
                            capacity,
                            c.relevanceShare(),
                            0,
                            0,
                            10,
                            null,
                            new FusedJacapScorer.WindowLead(c.windowShare(), 16))
                    .score(snapshot);
            assertThat(Arrays.deepEquals(grown, fixedShares)).as("%s", c).isFalse();
        }
    }

    @Test
    void aWindowLeadsShareGrowsLinearlyFromItsStartToTwiceIt() {
        FusedJacapScorer.WindowLead lead = new FusedJacapScorer.WindowLead(0.1, 64, 0.5, 4096);
        assertThat(lead.shareAt(1024)).isEqualTo(0.1);
        assertThat(lead.shareAt(4096)).isEqualTo(0.1);
        assertThat(lead.shareAt(6144)).isCloseTo(0.3, offset(1e-15));
        assertThat(lead.shareAt(8064)).isCloseTo(0.1 + 0.4 * 3968 / 4096, offset(1e-15));
        assertThat(lead.shareAt(8192)).isEqualTo(0.5);
        assertThat(lead.shareAt(1 << 20)).isEqualTo(0.5);
        // a share that does not grow has one form, however it is spelt
        assertThat(new FusedJacapScorer.WindowLead(0.2, 64, 0.2, 512))
                .isEqualTo(new FusedJacapScorer.WindowLead(0.2, 64))
                .isEqualTo(new FusedJacapScorer.WindowLead(0.2, 64, 0.7, FusedJacapScorer.WindowLead.NEVER));
        assertThat(new FusedJacapScorer.WindowLead(0.2, 64).shareAt(1 << 20)).isEqualTo(0.2);
    }

    @Test
    void aGrowingWindowLeadParsesBackAndRefusesBadValues() {
        FusedJacapScorer growing = (FusedJacapScorer) EvictionPolicies.scorer("jacap:window_share_long=0.5");
        assertThat(growing.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.1, 64, 0.5, 4096));
        assertThat(growing.spec())
                .contains(",window_share=0.1,window_queries=64,window_share_long=0.5,window_grow_from=4096,");
        assertThat(EvictionPolicies.scorer(growing.spec())).isEqualTo(growing);
        FusedJacapScorer own = (FusedJacapScorer)
                EvictionPolicies.scorer("jacap:window_share=0.2,window_share_long=0.4,window_grow_from=2048");
        assertThat(own.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.2, 64, 0.4, 2048));
        assertThat(EvictionPolicies.scorer(own.spec())).isEqualTo(own);
        // a share given alone stays fixed: the spelling docs/eviction.md measured at 8k
        FusedJacapScorer fixed = (FusedJacapScorer) EvictionPolicies.scorer("jacap:window_share=0.5,share=0.135");
        assertThat(fixed.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.5, 64));
        assertThat(fixed.spec()).doesNotContain("window_share_long");
        FusedJacapScorer never =
                (FusedJacapScorer) EvictionPolicies.scorer("jacap:window_share_long=0.5,window_grow_from=never");
        assertThat(never.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.1, 64));
        assertThat(((FusedJacapScorer) EvictionPolicies.scorer("jacap:window_grow_from=never")).windowLead())
                .as("the default's tenth without its growth")
                .isEqualTo(new FusedJacapScorer.WindowLead(0.1, 64));
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:window_share_long=0.05"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("window_share_long must be in [window_share, 1]");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:window_share_long=0.5,window_grow_from=0"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("window_grow_from >= 1");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:window_share_long=0.5,window_grow_from=4k"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("'window_grow_from'")
                .hasMessageContaining("an integer or 'never'");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:window_share=0,window_share_long=0.5"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("need window_share=S");
    }

    @Test
    void theWindowLeadIsATenthByDefaultParsesBackAndRefusesBadShares() {
        FusedJacapScorer d = (FusedJacapScorer) EvictionPolicies.scorer("jacap");
        // a tenth up to 4,096 entries, growing to half at 8,192 (since 2026-12-07)
        assertThat(d.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.1, 64, 0.5, 4096));
        assertThat(d.spec())
                .endsWith(
                        ",window_share=0.1,window_queries=64,window_share_long=0.5,window_grow_from=4096,heads=capacity");
        assertThat(EvictionPolicies.scorer(d.spec())).isEqualTo(d);
        assertThat(EvictionPolicies.scorer(
                        "jacap:share=0.535,window_share=0.1,window_share_long=0.5,window_grow_from=4096"))
                .isEqualTo(d);
        // the fixed tenth docs/eviction.md measured up to 4,096 entries is the default there, to the bit
        FusedJacapScorer tenth = (FusedJacapScorer) EvictionPolicies.scorer("jacap:share=0.535,window_share=0.1");
        assertThat(tenth.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.1, 64));
        assertThat(tenth.score(snapshot)).isDeepEqualTo(d.score(snapshot));
        FusedJacapScorer off = (FusedJacapScorer) EvictionPolicies.scorer("jacap:window_share=0");
        assertThat(off.windowLead()).isNull();
        assertThat(off.spec()).endsWith(",window_share=0,heads=capacity");
        assertThat(EvictionPolicies.scorer(off.spec())).isEqualTo(off);
        FusedJacapScorer q16 = (FusedJacapScorer) EvictionPolicies.scorer("jacap:window_queries=16");
        assertThat(q16.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.1, 16, 0.5, 4096));
        FusedJacapScorer led = (FusedJacapScorer) EvictionPolicies.scorer("jacap:share=0.5,window_share=0.25");
        assertThat(led.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.25, 64));
        assertThat(led.spec()).endsWith(",window_share=0.25,window_queries=64,heads=capacity");
        assertThat(EvictionPolicies.scorer(led.spec())).isEqualTo(led);
        FusedJacapScorer q32 = (FusedJacapScorer) EvictionPolicies.scorer("jacap:window_share=0.3,window_queries=32");
        assertThat(q32.windowLead()).isEqualTo(new FusedJacapScorer.WindowLead(0.3, 32));
        assertThat(EvictionPolicies.scorer(q32.spec())).isEqualTo(q32);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:window_share=0,window_queries=32"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("window_queries, window_share_long and window_grow_from need window_share=S");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:share=0.8,window_share=0.3"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("share + window_share <= 1");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:window_share=-0.1"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("window_share must be in (0, 1]");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:relevance=none,window_share=0.3"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("needs a relevance ranking");
    }

    @Test
    void theLongContextIsOffByDefaultAndParsesBack() {
        FusedJacapScorer d = (FusedJacapScorer) EvictionPolicies.scorer("jacap");
        assertThat(d.longContext()).isNull();
        assertThat(d.spec()).contains("long_from=never");
        assertThat(EvictionPolicies.scorer(d.spec())).isEqualTo(d);
        FusedJacapScorer at4k = (FusedJacapScorer) EvictionPolicies.scorer("jacap:long_from=4096");
        assertThat(at4k.longContext()).isEqualTo(new FusedJacapScorer.LongContext(4096, 64, 96));
        assertThat(at4k.spec()).contains("long_from=4096,long_window=64,long_reserve=96");
        assertThat(EvictionPolicies.scorer(at4k.spec())).isEqualTo(at4k);
        FusedJacapScorer allReserve = (FusedJacapScorer)
                EvictionPolicies.scorer("jacap:relevance=tova,long_from=2048,long_window=32,long_reserve=all");
        assertThat(allReserve.longContext())
                .isEqualTo(new FusedJacapScorer.LongContext(2048, 32, FusedJacapScorer.UNBOUNDED));
        assertThat(allReserve.spec()).contains("long_reserve=all");
        assertThat(EvictionPolicies.scorer(allReserve.spec())).isEqualTo(allReserve);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:long_window=32"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("need long_from=N");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:long_from=never,long_reserve=96"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("need long_from=N");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:long_from=soon"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("'long_from'")
                .hasMessageContaining("'never'");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:long_from=0"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("long_from and long_window must be >= 1");
    }

    /**
     * {@code heads=capacity|attention}: under AdaKV's joint selection each KV head keeps as many
     * entries as AdaKV by the currency alone would give it, and they are the top of its own
     * (uniform) fused ranking.
     */
    @Test
    void headBudgetsAreAdaKvsCountsByTheCurrencyOverEachHeadsOwnRanking() {
        FusedJacapScorer even = (FusedJacapScorer) EvictionPolicies.scorer("jacap:heads=uniform");
        double[][] fused = even.score(snapshot);
        for (FusedJacapScorer.HeadBudgets heads : new FusedJacapScorer.HeadBudgets[] {
            FusedJacapScorer.HeadBudgets.CAPACITY, FusedJacapScorer.HeadBudgets.ATTENTION
        }) {
            FusedJacapScorer shared = (FusedJacapScorer) EvictionPolicies.scorer("jacap:heads=" + heads.spelt());
            assertThat(shared.allocator()).isEqualTo(new AdaKvAllocator(AdaKvAllocator.DEFAULT_ALPHA));
            double[][] currency = (heads == FusedJacapScorer.HeadBudgets.CAPACITY
                            ? JacapScorer.observed()
                            : new ObservedAttentionScorer())
                    .score(snapshot);
            // AdaKV on the currency itself, the fused ranking's protected entries (4 sinks) first
            double[][] byCurrency = new double[2][];
            for (int g = 0; g < 2; g++) {
                byCurrency[g] = currency[g].clone();
                for (int i = 0; i < 4; i++) {
                    byCurrency[g][i] = 1e9 - i;
                }
            }
            double[][] scores = shared.score(snapshot);
            boolean uneven = false;
            for (int budget : new int[] {8, 15, 30, 45}) {
                int[][] kept = shared.allocator().select(scores, Budget.kept(budget), 0, 1);
                int[][] ada = shared.allocator().select(byCurrency, Budget.kept(budget), 0, 1);
                assertThat(kept[0].length + kept[1].length).isEqualTo(2 * budget);
                for (int g = 0; g < 2; g++) {
                    assertThat(kept[g])
                            .as("%s budget %d head %d", heads, budget, g)
                            .hasSameSizeAs(ada[g]);
                    assertThat(kept[g]).containsExactly(top(fused[g], kept[g].length));
                }
                uneven |= kept[0].length != budget;
            }
            assertThat(uneven).as("%s moves budget between the heads", heads).isTrue();
            assertThat(shared.statistics())
                    .isEqualTo(even.statistics().union(new ObservedAttentionScorer().statistics()));
        }
    }

    /** One KV head (Gemma 3 270M) has nothing to share: the scores are the uniform form's. */
    @Test
    void aSingleKvHeadKeepsTheUniformScores() {
        LayerSnapshot oneHead = new SyntheticLayer(5, 4, 1, 50, 8).snapshot(SyntheticLayer.everything(4, 32));
        assertThat(FusedJacapScorer.defaults().score(oneHead))
                .isDeepEqualTo(EvictionPolicies.scorer("jacap:heads=uniform").score(oneHead));
    }

    @Test
    void inCurrencyKeepsProtectedScoresAndEachHeadsOrderEvenThroughTies() {
        double[] fused = {3, -2, -0.0, 2, -1, -5};
        double[] currency = {9, 0.5, 0.5, 9, 0, 0}; // ties, and the protected entries' own values ignored
        double[] v = FusedJacapScorer.inCurrency(fused, currency);
        assertThat(v[0]).isEqualTo(3);
        assertThat(v[3]).isEqualTo(2);
        assertThat(v[2]).isEqualTo(-1 / 1.5);
        assertThat(v[2]).isGreaterThan(v[4]);
        assertThat(v[4]).isGreaterThan(v[1]);
        assertThat(v[1]).isGreaterThan(v[5]);
        assertThat(v[5]).isGreaterThanOrEqualTo(-1.0 - 1e-12).isLessThan(0);
        assertThat(TopK.rankOrder(v, 6)).containsExactly(TopK.rankOrder(fused, 6));
    }

    @Test
    void headBudgetsParseBackAndShareByCapacityByDefault() {
        assertThat(FusedJacapScorer.defaults().heads()).isEqualTo(FusedJacapScorer.HeadBudgets.CAPACITY);
        assertThat(FusedJacapScorer.defaults().spec()).endsWith(",heads=capacity");
        assertThat(FusedJacapScorer.defaults().allocator()).isEqualTo(new AdaKvAllocator(AdaKvAllocator.DEFAULT_ALPHA));
        assertThat(EvictionPolicies.policy("jacap").allocator()).isInstanceOf(AdaKvAllocator.class);
        FusedJacapScorer uniform = (FusedJacapScorer) EvictionPolicies.scorer("jacap:heads=uniform");
        assertThat(uniform.spec()).endsWith(",heads=uniform");
        assertThat(uniform.allocator()).isEqualTo(new UniformAllocator());
        assertThat(EvictionPolicies.scorer(uniform.spec())).isEqualTo(uniform);
        FusedJacapScorer capacityHeads = (FusedJacapScorer) EvictionPolicies.scorer("jacap:heads=capacity");
        assertThat(capacityHeads.spec()).endsWith(",heads=capacity");
        assertThat(EvictionPolicies.scorer(capacityHeads.spec())).isEqualTo(capacityHeads);
        assertThat(EvictionPolicies.policy("jacap:heads=attention").allocator()).isInstanceOf(AdaKvAllocator.class);
        assertThat(new ProtectedScorer(capacityHeads, 4, 16).allocator()).isInstanceOf(AdaKvAllocator.class);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:heads=some"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("'heads'")
                .hasMessageContaining("uniform, capacity, attention");
    }

    @Test
    void registryDefaultsAndBadParameters() {
        assertThat(EvictionPolicies.scorer("jacap")).isEqualTo(FusedJacapScorer.defaults());
        FusedJacapScorer tova = (FusedJacapScorer) EvictionPolicies.scorer("jacap:relevance=tova,share=0.75,recent=16");
        assertThat(tova.relevance()).isEqualTo(new TovaScorer());
        assertThat(tova.share()).isEqualTo(0.75);
        assertThat(EvictionPolicies.scorer(tova.spec())).isEqualTo(tova);
        assertThat(((FusedJacapScorer) EvictionPolicies.scorer("jacap:capacity=none")).share())
                .isEqualTo(1.0);
        // KeyDiff's novelty in the capacity slot: an ablation (docs/eviction.md, "Novelty in the reserve")
        FusedJacapScorer novelty = (FusedJacapScorer) EvictionPolicies.scorer("jacap:capacity=keydiff");
        assertThat(novelty.capacity()).isEqualTo(KeyDiffScorer.defaults());
        assertThat(EvictionPolicies.scorer(novelty.spec())).isEqualTo(novelty);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:share=2"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("share must be in [0, 1]");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:relevance=none,capacity=none"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("needs a relevance or a capacity ranking");
        FusedJacapScorer reserved = (FusedJacapScorer) EvictionPolicies.scorer("jacap:relevance=h2o,reserve=32");
        assertThat(reserved.reserve()).isEqualTo(32);
        assertThat(reserved.budgetReserve())
                .as("a reserve asked for holds under a budget too")
                .isEqualTo(32);
        assertThat(EvictionPolicies.scorer(reserved.spec())).isEqualTo(reserved);
        assertThat(FusedJacapScorer.defaults().spec())
                .contains(
                        "relevance=jacap-observed,",
                        "share=0.535",
                        "reserve=96,budget_reserve=48,",
                        "long_from=never",
                        "window_share=0.1,window_queries=64");
        FusedJacapScorer twoReserves =
                (FusedJacapScorer) EvictionPolicies.scorer("jacap:reserve=all,budget_reserve=16");
        assertThat(twoReserves.reserve()).isEqualTo(FusedJacapScorer.UNBOUNDED);
        assertThat(twoReserves.budgetReserve()).isEqualTo(16);
        assertThat(twoReserves.spec()).contains(",reserve=all,budget_reserve=16,");
        assertThat(EvictionPolicies.scorer(twoReserves.spec())).isEqualTo(twoReserves);
        assertThat(twoReserves.underBudget().reserve()).isEqualTo(16);
        assertThat(twoReserves.underBudget().heads()).isEqualTo(FusedJacapScorer.HeadBudgets.UNIFORM);
        FusedJacapScorer evenOnly =
                (FusedJacapScorer) EvictionPolicies.scorer("jacap:heads=uniform,reserve=48,capacity_kernel=1");
        assertThat(evenOnly.underBudget()).isSameAs(evenOnly);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:budget_reserve=-1"))
                .isInstanceOf(JacapException.class);
        // the default before 2026-12-04, and a single ranking, have no window lead unless told
        FusedJacapScorer before = (FusedJacapScorer) EvictionPolicies.scorer("jacap:share=0.635,window_share=0");
        assertThat(before.windowLead()).isNull();
        assertThat(before.share()).isEqualTo(0.635);
        assertThat(((FusedJacapScorer) EvictionPolicies.scorer("jacap:relevance=none")).windowLead())
                .isNull();
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:share=0.95"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("share + window_share <= 1");
        assertThat(FusedJacapScorer.defaults().spec()).doesNotContain("values=");
        assertThat(FusedJacapScorer.defaults().relevance()).isEqualTo(JacapScorer.observed());
        // the default before 2026-12-06 is spelt relevance=h2o: the value-aware attention; the plain H2O is spelt out
        assertThat(reserved.relevance()).isEqualTo(FusedJacapScorer.VALUE_AWARE_ATTENTION);
        FusedJacapScorer valueAware = (FusedJacapScorer) EvictionPolicies.scorer("jacap:relevance=h2o");
        assertThat(valueAware.spec()).contains("relevance=h2o,", "values=output,group=max");
        assertThat(EvictionPolicies.scorer(valueAware.spec())).isEqualTo(valueAware);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:values=none"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("values");
        FusedJacapScorer plain =
                (FusedJacapScorer) EvictionPolicies.scorer("jacap:relevance=h2o,values=none,group=mean");
        assertThat(plain.relevance()).isEqualTo(new ObservedAttentionScorer());
        assertThat(EvictionPolicies.scorer(plain.spec())).isEqualTo(plain);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:relevance=h2o,values=loud"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("none, norm, deviation, output");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:relevance=tova,values=output"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("values");
        FusedJacapScorer unbounded = (FusedJacapScorer) EvictionPolicies.scorer("jacap:reserve=all");
        assertThat(unbounded.reserve()).isEqualTo(FusedJacapScorer.UNBOUNDED);
        assertThat(EvictionPolicies.scorer(unbounded.spec())).isEqualTo(unbounded);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:reserve=some"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("must be an integer");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:reserve=-1"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("reserve must be >= 0");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:relevance=keydiff"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("snapkv, tova, h2o, jacap-observed, none");
    }

    @Test
    void averagePoolingTakesEachEntrysNeighboursAndLeavesTheSinks() {
        double[] x = {9, 9, 1, 2, 3, 10, 0};
        assertThat(FusedJacapScorer.averagePool(x, 3, 2)).containsExactly(9, 9, 1.5, 2, 5, 13.0 / 3, 5);
        assertThat(FusedJacapScorer.averagePool(x, 5, 2)).containsExactly(9, 9, 2, 4, 3.2, 15.0 / 4, 13.0 / 3);
        assertThat(FusedJacapScorer.averagePool(x, 1, 2)).containsExactly(x);
        assertThat(FusedJacapScorer.averagePool(new double[] {5, 1}, 3, 2)).containsExactly(5, 1);
    }

    /** The fused scores with the capacity ranking alone (share 0), no reserve, the kernel in both forms. */
    private double[][] capacityOnly(int sinks, int kernel) {
        return new FusedJacapScorer(
                        relevance,
                        capacity,
                        0.0,
                        sinks,
                        0,
                        FusedJacapScorer.UNBOUNDED,
                        null,
                        null,
                        FusedJacapScorer.HeadBudgets.UNIFORM,
                        FusedJacapScorer.UNBOUNDED,
                        kernel,
                        kernel)
                .score(snapshot);
    }

    @Test
    void aCapacityKernelRanksByTheNeighbourhoodsMeanCapacity() {
        double[][] cap = capacity.score(snapshot);
        int sinks = 4;
        for (int kernel : new int[] {1, 3, 5}) {
            double[][] fused = capacityOnly(sinks, kernel);
            for (int g = 0; g < 2; g++) {
                double[] pooled = FusedJacapScorer.averagePool(cap[g], kernel, sinks);
                for (int i = 0; i < sinks; i++) {
                    pooled[i] = Double.POSITIVE_INFINITY; // the fused scorer's own sinks lead
                }
                for (int k : new int[] {6, 13, 30}) {
                    assertThat(top(fused[g], k)).as("kernel %d k=%d", kernel, k).containsExactly(top(pooled, k));
                }
            }
        }
        // pooling changes what a budget keeps here, so the test above is not vacuous
        double[] plain = FusedJacapScorer.averagePool(cap[0], 1, sinks);
        double[] wide = FusedJacapScorer.averagePool(cap[0], 5, sinks);
        assertThat(top(wide, 13)).isNotEqualTo(top(plain, 13));
    }

    @Test
    void aCapacityKernelLeavesTheCapacityScorersOwnSinksOutOfItsAverages() {
        // no sinks of its own: the capacity scorer's 4 protected sinks must still not be averaged
        // into their neighbours (their scores are priorities above every measured capacity)
        double[][] cap = capacity.score(snapshot);
        assertThat(capacity.protectedSinks()).isEqualTo(4);
        assertThat(EvictionPolicies.scorer("greedy").protectedSinks()).isEqualTo(4);
        assertThat(EvictionPolicies.scorer("tova").protectedSinks()).isZero();
        assertThat(EvictionPolicies.scorer("streaming").protectedSinks()).isEqualTo(4);
        assertThat(EvictionPolicies.scorer("jacap:sinks=6").protectedSinks()).isEqualTo(6);
        assertThat(EvictionPolicies.scorer("capkv:protect_sinks=8,protect_recent=0")
                        .protectedSinks())
                .isEqualTo(8);
        double[][] fused = capacityOnly(0, 5);
        for (int g = 0; g < 2; g++) {
            double[] pooled = FusedJacapScorer.averagePool(cap[g], 5, 4);
            double[] leaky = FusedJacapScorer.averagePool(cap[g], 5, 0);
            for (int k : new int[] {6, 13, 30}) {
                assertThat(top(fused[g], k)).as("k=%d", k).containsExactly(top(pooled, k));
            }
            // averaged from 0, the sinks' priorities lift their neighbours: what the test rules out
            assertThat(top(leaky, 8)).isNotEqualTo(top(pooled, 8));
        }
    }

    @Test
    void capacityKernelIsParsedSpeltAndChecked() {
        FusedJacapScorer pooled = (FusedJacapScorer) EvictionPolicies.scorer("jacap:capacity_kernel=5");
        assertThat(pooled.capacityKernel()).isEqualTo(5);
        assertThat(pooled.spec()).contains(",capacity_kernel=5,budget_kernel=5,");
        assertThat(EvictionPolicies.scorer(pooled.spec())).isEqualTo(pooled);
        // a kernel asked for holds under a budget too, unless budget_kernel says otherwise
        assertThat(pooled.underBudget().capacityKernel()).isEqualTo(5);
        FusedJacapScorer split = (FusedJacapScorer) EvictionPolicies.scorer("jacap:capacity_kernel=5,budget_kernel=3");
        assertThat(split.underBudget().capacityKernel()).isEqualTo(3);
        assertThat(EvictionPolicies.scorer(split.spec())).isEqualTo(split);
        // the default pools 17 entries where a prompt is compressed by a ratio, none under a budget
        FusedJacapScorer d = FusedJacapScorer.defaults();
        assertThat(d.spec()).contains(",capacity_kernel=17,budget_kernel=1,");
        assertThat(EvictionPolicies.scorer("jacap")).isEqualTo(d);
        assertThat(d.underBudget().capacityKernel()).isEqualTo(FusedJacapScorer.DEFAULT_BUDGET_KERNEL);
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:capacity_kernel=4"))
                .isInstanceOf(JacapException.class)
                .hasMessage("jacap: capacity_kernel and budget_kernel must be odd and >= 1, got 4 and 4");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:budget_kernel=2"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("must be odd");
        assertThatThrownBy(() -> EvictionPolicies.scorer("jacap:capacity_kernel=0"))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("got 0 and 0");
    }
}

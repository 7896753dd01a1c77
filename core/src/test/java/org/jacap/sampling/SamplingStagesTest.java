package org.jacap.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SamplingStagesTest {
    private static final TokenHistory NO_HISTORY = new TokenHistory(0);

    private static Candidates of(float... logits) {
        Candidates c = new Candidates(logits.length);
        c.reset(logits, 0);
        return c;
    }

    private static float[] logProbs(double... probs) {
        float[] l = new float[probs.length];
        for (int i = 0; i < probs.length; i++) {
            l[i] = (float) Math.log(probs[i]);
        }
        return l;
    }

    private static float[] logitsOf(Candidates c) {
        float[] l = new float[c.size()];
        for (int i = 0; i < l.length; i++) {
            l[i] = c.logit(i);
        }
        return l;
    }

    @Test
    void topKKeepsTheKHighestInOrderWithTiesToLowerIds() {
        Candidates c = of(1, 5, 3, 5, 2);
        new TopK(3).apply(c, NO_HISTORY);
        assertThat(c.ids()).containsExactly(1, 3, 2);
        assertThat(c.isSorted()).isTrue();

        Candidates tie = of(1, 5, 3, 5, 2);
        new TopK(1).apply(tie, NO_HISTORY);
        assertThat(tie.ids()).containsExactly(1);
    }

    @Test
    void topKOffOrLargerThanTheVocabularyKeepsEverything() {
        Candidates c = of(1, 5, 3);
        new TopK(0).apply(c, NO_HISTORY);
        new TopK(10).apply(c, NO_HISTORY);
        assertThat(c.ids()).containsExactly(0, 1, 2);
    }

    @Test
    void topKOverALargeVocabularyMatchesAFullSort() {
        SplittableRandom r = new SplittableRandom(7);
        int n = 128_256;
        float[] logits = new float[n];
        for (int i = 0; i < n; i++) {
            logits[i] = (float) Math.round(r.nextGaussian() * 300) / 100f; // many exact ties
        }
        for (int k : new int[] {1, 40, 1000}) {
            Candidates c = of(logits);
            new TopK(k).apply(c, NO_HISTORY);
            assertThat(c.ids()).containsExactly(naiveOrder(logits, k));
        }
    }

    @Test
    void topPKeepsUntilTheCumulativeProbabilityReachesP() {
        float[] l = logProbs(0.1, 0.5, 0.15, 0.25); // sorted: 1 (.5), 3 (.25), 2 (.15), 0 (.1)
        assertKeptByTopP(l, 0.4f, 1);
        assertKeptByTopP(l, 0.7f, 1, 3);
        assertKeptByTopP(l, 0.85f, 1, 3, 2);
        assertKeptByTopP(l, 0.95f, 1, 3, 2, 0);
        assertKeptByTopP(l, 1.0f, 0, 1, 2, 3); // off: untouched, unsorted
    }

    private static void assertKeptByTopP(float[] logits, float p, int... expected) {
        Candidates c = of(logits);
        new TopP(p).apply(c, NO_HISTORY);
        assertThat(c.ids()).as("top-p %s", p).containsExactly(expected);
    }

    @Test
    void topPUsesTheProbabilitiesOfTheCandidatesLeftByTopK() {
        // after top-2 the survivors are renormalised: .5/.75 = .667, so p = .6 keeps only the first
        Candidates c = of(logProbs(0.1, 0.5, 0.15, 0.25));
        new TopK(2).apply(c, NO_HISTORY);
        new TopP(0.6f).apply(c, NO_HISTORY);
        assertThat(c.ids()).containsExactly(1);
    }

    @Test
    void topPOverAFlatLargeVocabularyMatchesANaiveNucleus() {
        SplittableRandom r = new SplittableRandom(11);
        int n = 32_000;
        float[] logits = new float[n];
        for (int i = 0; i < n; i++) {
            logits[i] = (float) (r.nextDouble() * 2); // flat: the nucleus spans most of the vocabulary
        }
        Candidates c = of(logits);
        new TopP(0.9f).apply(c, NO_HISTORY);

        int[] order = naiveOrder(logits, n);
        double max = logits[order[0]];
        double sum = 0;
        for (float l : logits) {
            sum += Math.exp(l - max);
        }
        double cumulative = 0;
        int keep = 0;
        while (cumulative < 0.9) {
            cumulative += Math.exp(logits[order[keep++]] - max) / sum;
        }
        assertThat(keep).isGreaterThan(20_000);
        assertThat(c.ids()).containsExactly(Arrays.copyOf(order, keep));
    }

    @Test
    void minPDropsTokensBelowAFractionOfTheTopProbabilityKeepingOrder() {
        Candidates c = of(logProbs(0.1, 0.5, 0.15, 0.25)); // threshold .25 × .5 = .125
        new MinP(0.25f).apply(c, NO_HISTORY);
        assertThat(c.ids()).containsExactly(1, 2, 3);

        Candidates sorted = of(logProbs(0.1, 0.5, 0.15, 0.25));
        new TopK(4).apply(sorted, NO_HISTORY); // no-op on the set
        new TopK(3).apply(sorted, NO_HISTORY);
        new MinP(0.4f).apply(sorted, NO_HISTORY); // threshold .2
        assertThat(sorted.ids()).containsExactly(1, 3);
        assertThat(sorted.isSorted()).isTrue();
    }

    @Test
    void minPAlwaysKeepsTheTopToken() {
        Candidates c = of(0, 10, 0);
        new MinP(1.0f).apply(c, NO_HISTORY);
        assertThat(c.ids()).containsExactly(1);
    }

    @Test
    void temperatureDividesTheLogits() {
        Candidates c = of(2, -4, 1);
        new Temperature(0.5f).apply(c, NO_HISTORY);
        assertThat(logitsOf(c)).containsExactly(4, -8, 2);
    }

    @Test
    void repetitionPenaltyDividesPositiveAndMultipliesNegativeLogitsOncePerDistinctToken() {
        TokenHistory recent = history(0, 1, 0, 7); // 7 is out of the vocabulary: ignored
        Candidates c = of(2, -2, 1, 0.5f);
        new RepetitionPenalty(2, 64).apply(c, recent);
        assertThat(logitsOf(c)).containsExactly(1, -4, 1, 0.5f);
    }

    @Test
    void repetitionPenaltyLooksOnlyAtTheLastNTokens() {
        Candidates c = of(2, -2, 1, 0.5f);
        new RepetitionPenalty(2, 2).apply(c, history(1, 3, 0)); // last 2: 3, 0
        assertThat(logitsOf(c)).containsExactly(1, -2, 1, 0.25f);
    }

    @Test
    void repetitionPenaltyWorksOnReorderedCandidates() {
        Candidates c = of(2, -2, 1, 0.5f);
        new TopK(3).apply(c, NO_HISTORY); // ids 0, 2, 3
        new RepetitionPenalty(4, 64).apply(c, history(0, 1));
        assertThat(c.ids()).containsExactly(0, 2, 3);
        assertThat(logitsOf(c)).containsExactly(0.5f, 1, 0.5f);
        assertThat(new Greedy().choose(c, null)).isEqualTo(2);
    }

    @Test
    void greedyBreaksTiesTowardTheLowestId() {
        assertThat(new Greedy().choose(of(3, 7, 7, 1, 7), null)).isEqualTo(1);
        Candidates sorted = of(3, 7, 7, 1, 7);
        new TopK(3).apply(sorted, NO_HISTORY);
        assertThat(new Greedy().choose(sorted, null)).isEqualTo(1);
    }

    @Test
    void softmaxOfTheCandidates() {
        Candidates c = of(logProbs(0.1, 0.5, 0.15, 0.25));
        c.softmax();
        assertThat(c.prob(1)).isCloseTo(0.5f, within(1e-6f));
        assertThat(c.prob(0) + c.prob(1) + c.prob(2) + c.prob(3)).isCloseTo(1f, within(1e-6f));
    }

    static TokenHistory history(int... tokens) {
        TokenHistory h = new TokenHistory(64);
        for (int t : tokens) {
            h.add(t);
        }
        return h;
    }

    /** Ids by descending logit, ties → lower id: the order every stage must agree with. */
    static int[] naiveOrder(float[] logits, int k) {
        return IntStream.range(0, logits.length)
                .boxed()
                .sorted(Comparator.<Integer>comparingDouble(i -> -logits[i]).thenComparingInt(i -> i))
                .limit(k)
                .mapToInt(Integer::intValue)
                .toArray();
    }
}

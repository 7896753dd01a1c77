package org.jacap.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class MetricsTest {
    private static final float LN3 = (float) Math.log(3);

    @Test
    void klOfHandComputedPair() {
        // p = softmax(0, 0) = (1/2, 1/2); q = softmax(ln 3, 0) = (3/4, 1/4).
        // KL(p‖q) = ½ ln(½ / ¾) + ½ ln(½ / ¼) = ½ ln(4/3).
        TokenComparison c = new TokenComparison(2);
        TokenComparison.Score s = c.compare(new float[] {0, 0}, 0, new float[] {9, LN3, 0}, 1, 1);
        assertThat(s.kl()).isCloseTo(0.5 * Math.log(4.0 / 3.0), within(1e-7));
        assertThat(s.sameTop1()).isTrue(); // the tie in p goes to index 0, q's argmax is 0
        assertThat(s.nllFull()).isCloseTo(Math.log(2), within(1e-12));
        assertThat(s.nllCompressed()).isCloseTo(Math.log(4), within(1e-7));
    }

    @Test
    void klIsZeroForIdenticalAndShiftedLogits() {
        TokenComparison c = new TokenComparison(4);
        float[] a = {1.5f, -2f, 0.25f, 3f};
        float[] shifted = {11.5f, 8f, 10.25f, 13f};
        TokenComparison.Score s = c.compare(a, 0, shifted, 0, 3);
        assertThat(s.kl()).isCloseTo(0, within(1e-12));
        assertThat(s.sameTop1()).isTrue();
        assertThat(s.nllCompressed()).isCloseTo(s.nllFull(), within(1e-6));
    }

    @Test
    void disagreeingArgmaxAndBadTarget() {
        TokenComparison c = new TokenComparison(3);
        assertThat(c.compare(new float[] {0, 5, 0}, 0, new float[] {5, 0, 0}, 0, 0)
                        .sameTop1())
                .isFalse();
        assertThatThrownBy(() -> c.compare(new float[3], 0, new float[3], 0, 3))
                .hasMessageContaining("outside vocabulary");
    }

    @Test
    void largeLogitsStayFinite() {
        TokenComparison c = new TokenComparison(2);
        TokenComparison.Score s = c.compare(new float[] {1000f, 1000f}, 0, new float[] {1000f, 1000f + LN3}, 0, 0);
        assertThat(s.nllFull()).isCloseTo(Math.log(2), within(1e-12));
        assertThat(s.kl()).isCloseTo(0.5 * Math.log(4.0 / 3.0), within(1e-4)); // ln 3 rounded at 1000 in float
    }

    @Test
    void oneReferenceServesManyComparisonsAndMatchesTheTextbookKl() {
        // KL computed as Σ p(x − y) + (log Z_q − log Z_p): the same as Σ p (log p − log q) on a large
        // vocabulary with a small perturbation (where the cancellation would show)
        int n = 50_001;
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        float[] x = new float[n];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (r.nextDouble() * 20 - 10);
            y[i] = x[i] + (float) (r.nextGaussian() * 0.01);
        }
        TokenComparison c = new TokenComparison(n);
        TokenComparison.Reference ref = c.reference(x, 0);
        double textbook = textbookKl(x, y);
        assertThat(textbook).isBetween(1e-6, 1e-3);
        // both normalisers sum float exponentials (about 2 ulp each, so a bound of 2.4e-7 nats); with
        // errors that mostly cancel between the two nearly equal rows the difference is about 1e-9
        assertThat(c.compare(ref, y, 0, 5).kl()).isCloseTo(textbook, within(1e-8));
        assertThat(c.compare(ref, x, 0, 5).kl()).isCloseTo(0, within(1e-14));
        assertThat(c.compare(ref, y, 0, 5)).isEqualTo(c.compare(x, 0, y, 0, 5));
    }

    private static double textbookKl(float[] x, float[] y) {
        double zx = logSumExp(x);
        double zy = logSumExp(y);
        double kl = 0;
        for (int i = 0; i < x.length; i++) {
            double lp = x[i] - zx;
            kl += Math.exp(lp) * (lp - (y[i] - zy));
        }
        return kl;
    }

    private static double logSumExp(float[] v) {
        double max = Double.NEGATIVE_INFINITY;
        for (float f : v) {
            max = Math.max(max, f);
        }
        double sum = 0;
        for (float f : v) {
            sum += Math.exp(f - max);
        }
        return max + Math.log(sum);
    }

    @Test
    void documentFidelityAveragesTokens() {
        DocumentFidelity d = DocumentFidelity.of(List.of(
                new TokenComparison.Score(0.2, true, 1.0, 1.5, 0), new TokenComparison.Score(0.4, false, 2.0, 2.1, 1)));
        assertThat(d.meanKl()).isCloseTo(0.3, within(1e-15));
        assertThat(d.top1Agreement()).isEqualTo(0.5);
        assertThat(d.deltaNll()).isCloseTo(0.3, within(1e-15));
        assertThat(d.tokenKl()).containsExactly(0.2, 0.4);
    }

    @Test
    void percentileInterpolatesLinearly() {
        assertThat(Percentile.of(new double[] {4, 1, 3, 2}, 0.9)).isCloseTo(3.7, within(1e-12));
        assertThat(Percentile.of(new double[] {5}, 0.9)).isEqualTo(5);
        assertThat(Percentile.of(new double[] {1, 2, 3}, 0.5)).isEqualTo(2);
        assertThatThrownBy(() -> Percentile.of(new double[0], 0.5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void bootstrapIsDeterministicPairedAndBracketsTheMean() {
        double[] values = new double[40];
        for (int i = 0; i < values.length; i++) {
            values[i] = (i * 37 % 11) / 10.0;
        }
        PairedBootstrap a = new PairedBootstrap(40, 500, 7);
        PairedBootstrap b = new PairedBootstrap(40, 500, 7);
        Estimate ea = a.mean(values);
        assertThat(b.mean(values)).isEqualTo(ea);
        assertThat(ea.low()).isLessThan(ea.value());
        assertThat(ea.high()).isGreaterThan(ea.value());
        assertThat(new PairedBootstrap(40, 500, 8).mean(values)).isNotEqualTo(ea);
        // A constant has a zero-width interval.
        assertThat(a.mean(new double[40])).isEqualTo(new Estimate(0, 0, 0));
        assertThatThrownBy(() -> a.mean(new double[3])).hasMessageContaining("3 values for 40 documents");
    }

    @Test
    void bootstrapIntervalOfTheMeanHasTheExpectedWidth() {
        // 0/1 values, p = 0.5, n = 400: the standard error is 0.025, so the 95% interval is about ±0.049.
        double[] values = new double[400];
        for (int i = 0; i < values.length; i += 2) {
            values[i] = 1;
        }
        Estimate e = new PairedBootstrap(400, 2000, 1).mean(values);
        assertThat(e.value()).isEqualTo(0.5);
        assertThat(e.high() - e.low()).isBetween(0.08, 0.115);
    }

    @Test
    void protectionParses() {
        assertThat(Protection.parse("4,32")).isEqualTo(new Protection(4, 32));
        assertThatThrownBy(() -> Protection.parse("4")).hasMessageContaining("N_SINK,N_RECENT");
        assertThatThrownBy(() -> Protection.parse("a,b")).hasMessageContaining("two integers");
        assertThatThrownBy(() -> Protection.parse("-1,2")).hasMessageContaining(">= 0");
    }
}

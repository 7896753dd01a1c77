package org.jacap.bench.perplexity;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Locale;

/**
 * The statistics of {@code llama-perplexity --kl-divergence}: a model's logits against a base file's
 * stored log-probabilities, row by row, with the same formulas and the same report.
 */
public final class KlDivergence {
    private double sumNll;
    private double sumNll2;
    private double sumNllBase;
    private double sumNllBase2;
    private double sumNllNllBase;
    private double sumKld;
    private double sumKld2;
    private double sumPDiff;
    private double sumPDiff2;
    private double sumPDiff4;
    private long sameTop;
    private int count;
    private float[] kldValues = new float[1024];
    private float[] pDiffValues = new float[1024];

    /** Adds one position: {@code logits[off, off+n)} predicting {@code token}, against its base row. */
    public void add(float[] logits, int off, int n, QuantizedLogProbs base, int token) {
        float max = logits[off];
        int top = 0;
        for (int i = 1; i < n; i++) {
            if (logits[off + i] > max) {
                max = logits[off + i];
                top = i;
            }
        }
        float logSumExp = (float) Math.log(LlamaSoftmax.sumExp(logits, off, n, max));
        float nll = max + logSumExp - logits[off + token];
        float nllBase = -base.logProb(token);
        sumNll += nll;
        sumNll2 += nll * nll;
        sumNllBase += nllBase;
        sumNllBase2 += nllBase * nllBase;
        sumNllNllBase += nll * nllBase;

        float logZ = max + logSumExp;
        double kld = 0;
        int topBase = -1;
        float topBaseLogP = 0;
        for (int i = 0; i < n; i++) {
            float lpBase = base.logProb(i);
            if (i == 0 || lpBase > topBaseLogP) {
                topBaseLogP = lpBase;
                topBase = i;
            }
            if (lpBase > -16f) {
                kld += (float) Math.exp(lpBase) * (lpBase - logits[off + i] + logZ);
            }
        }
        sumKld += kld;
        sumKld2 += kld * kld;
        if (top == topBase) {
            sameTop++;
        }
        float pDiff = (float) Math.exp(-nll) - (float) Math.exp(-nllBase);
        sumPDiff += pDiff;
        double pDiff2 = (double) pDiff * pDiff;
        sumPDiff2 += pDiff2;
        sumPDiff4 += pDiff2 * pDiff2;
        if (count == kldValues.length) {
            kldValues = Arrays.copyOf(kldValues, 2 * count);
            pDiffValues = Arrays.copyOf(pDiffValues, 2 * count);
        }
        kldValues[count] = (float) kld;
        pDiffValues[count] = pDiff;
        count++;
    }

    public int count() {
        return count;
    }

    /** Mean KL divergence in nats. */
    public double meanKld() {
        return sumKld / count;
    }

    /** Fraction of positions where both models put the same token on top. */
    public double sameTopFraction() {
        return (double) sameTop / count;
    }

    /** exp(mean NLL) of the model under test. */
    public double perplexity() {
        return Math.exp(sumNll / count);
    }

    /** exp(mean NLL) of the base. */
    public double basePerplexity() {
        return Math.exp(sumNllBase / count);
    }

    private record Estimate(double value, double uncertainty) {}

    private Estimate meanAndUncertainty(double sum, double sum2) {
        if (count < 1) {
            return new Estimate(0, 0);
        }
        double f = sum / count;
        double df = sum2 / count - f * f;
        df = df > 0 && count > 10 ? Math.sqrt(df / (count - 1)) : 0;
        return new Estimate(f, df);
    }

    private double covariance() {
        if (count < 10) {
            return 0;
        }
        return (sumNllNllBase / count - (sumNll / count) * (sumNllBase / count)) / (count - 1);
    }

    /** The per-chunk line: chunk, PPL, ln(PPL ratio), KLD, Δp RMS, same top p. */
    public String chunkLine(int chunk) {
        Estimate logPpl = meanAndUncertainty(sumNll, sumNll2);
        Estimate logBase = meanAndUncertainty(sumNllBase, sumNllBase2);
        double ppl = Math.exp(logPpl.value());
        double ratioUnc = Math.sqrt(logPpl.uncertainty() * logPpl.uncertainty()
                + logBase.uncertainty() * logBase.uncertainty()
                - 2 * covariance());
        Estimate kl = meanAndUncertainty(sumKld, sumKld2);
        Estimate mse = meanAndUncertainty(sumPDiff2, sumPDiff4);
        double rms = Math.sqrt(mse.value());
        double top = sameTopFraction();
        return String.format(
                Locale.ROOT,
                "%4d    %9.4f ± %9.4f    %10.5f ± %10.5f    %10.5f ± %10.5f    %6.3f ± %6.3f %%    %6.3f ± %6.3f %%",
                chunk,
                ppl,
                ppl * logPpl.uncertainty(),
                logPpl.value() - logBase.value(),
                ratioUnc,
                kl.value(),
                kl.uncertainty(),
                100 * rms,
                100 * 0.5 / rms * mse.uncertainty(),
                100 * top,
                100 * Math.sqrt(top * (1 - top) / (count - 1)));
    }

    /** Header of the per-chunk lines. */
    public static String chunkHeader() {
        return "chunk             PPL               ln(PPL(Q)/PPL(base))          KL Divergence              Δp RMS"
                + "            Same top p";
    }

    private static float percentile(float[] sorted, int n, float fraction) {
        if (fraction <= 0) {
            return sorted[0];
        }
        if (fraction >= 1) {
            return sorted[n - 1];
        }
        float p = fraction * (n - 1);
        int ip = (int) p;
        p -= ip;
        return (1 - p) * sorted[ip] + p * sorted[Math.min(ip + 1, n - 1)];
    }

    private static float median(float[] sorted, int n) {
        return n % 2 == 0 ? 0.5f * (sorted[n / 2] + sorted[n / 2 - 1]) : sorted[n / 2];
    }

    /** The closing statistics, in llama.cpp's layout (nothing below 100 positions, as llama.cpp). */
    public void report(PrintWriter out) {
        if (count < 100) {
            out.println("(fewer than 100 scored positions: no summary statistics)");
            return;
        }
        float[] kl = Arrays.copyOf(kldValues, count);
        float[] dp = Arrays.copyOf(pDiffValues, count);
        Arrays.sort(kl);
        Arrays.sort(dp);
        Estimate logPpl = meanAndUncertainty(sumNll, sumNll2);
        Estimate logBase = meanAndUncertainty(sumNllBase, sumNllBase2);
        double ppl = Math.exp(logPpl.value());
        double pplUnc = ppl * logPpl.uncertainty();
        double pplBase = Math.exp(logBase.value());
        double pplBaseUnc = pplBase * logBase.uncertainty();
        double cov = covariance();
        double logRatio = logPpl.value() - logBase.value();
        double logRatioUnc = Math.sqrt(
                logPpl.uncertainty() * logPpl.uncertainty() + logBase.uncertainty() * logBase.uncertainty() - 2 * cov);
        double ratio = Math.exp(logRatio);
        double pplCov = ppl * pplBase * cov;
        out.println("====== Perplexity statistics ======");
        out.printf(Locale.ROOT, "Mean PPL(Q)                   : %10.6f ± %10.6f%n", ppl, pplUnc);
        out.printf(Locale.ROOT, "Mean PPL(base)                : %10.6f ± %10.6f%n", pplBase, pplBaseUnc);
        out.printf(
                Locale.ROOT,
                "Cor(ln(PPL(Q)), ln(PPL(base))): %6.2f%%%n",
                100 * cov / (logPpl.uncertainty() * logBase.uncertainty()));
        out.printf(Locale.ROOT, "Mean ln(PPL(Q)/PPL(base))     : %10.6f ± %10.6f%n", logRatio, logRatioUnc);
        out.printf(Locale.ROOT, "Mean PPL(Q)/PPL(base)         : %10.6f ± %10.6f%n", ratio, ratio * logRatioUnc);
        out.printf(
                Locale.ROOT,
                "Mean PPL(Q)-PPL(base)         : %10.6f ± %10.6f%n",
                ppl - pplBase,
                Math.sqrt(pplUnc * pplUnc + pplBaseUnc * pplBaseUnc - 2 * pplCov));
        out.println();
        out.println("====== KL divergence statistics ======");
        Estimate k = meanAndUncertainty(sumKld, sumKld2);
        out.printf(Locale.ROOT, "Mean    KLD: %10.6f ± %10.6f%n", k.value(), k.uncertainty());
        out.printf(Locale.ROOT, "Maximum KLD: %10.6f%n", kl[count - 1]);
        for (float f : new float[] {0.999f, 0.99f, 0.95f, 0.90f}) {
            out.printf(Locale.ROOT, "%s   KLD: %10.6f%n", pct(f), percentile(kl, count, f));
        }
        out.printf(Locale.ROOT, "Median  KLD: %10.6f%n", median(kl, count));
        for (float f : new float[] {0.10f, 0.05f, 0.01f, 0.001f}) {
            out.printf(Locale.ROOT, "%s   KLD: %10.6f%n", pct(f), percentile(kl, count, f));
        }
        out.printf(Locale.ROOT, "Minimum KLD: %10.6f%n", kl[0]);
        out.println();
        out.println("====== Token probability statistics ======");
        Estimate p = meanAndUncertainty(sumPDiff, sumPDiff2);
        out.printf(Locale.ROOT, "Mean    Δp: %6.3f ± %5.3f %%%n", 100 * p.value(), 100 * p.uncertainty());
        out.printf(Locale.ROOT, "Maximum Δp: %6.3f%%%n", 100 * dp[count - 1]);
        for (float f : new float[] {0.999f, 0.99f, 0.95f, 0.90f, 0.75f}) {
            out.printf(Locale.ROOT, "%s   Δp: %6.3f%%%n", pct(f), 100 * percentile(dp, count, f));
        }
        out.printf(Locale.ROOT, "Median  Δp: %6.3f%%%n", 100 * median(dp, count));
        for (float f : new float[] {0.25f, 0.10f, 0.05f, 0.01f, 0.001f}) {
            out.printf(Locale.ROOT, "%s   Δp: %6.3f%%%n", pct(f), 100 * percentile(dp, count, f));
        }
        out.printf(Locale.ROOT, "Minimum Δp: %6.3f%%%n", 100 * dp[0]);
        Estimate mse = meanAndUncertainty(sumPDiff2, sumPDiff4);
        double rms = Math.sqrt(mse.value());
        out.printf(Locale.ROOT, "RMS Δp    : %6.3f ± %5.3f %%%n", 100 * rms, 100 * 0.5 / rms * mse.uncertainty());
        double top = sameTopFraction();
        out.printf(
                Locale.ROOT,
                "Same top p: %6.3f ± %5.3f %%%n",
                100 * top,
                100 * Math.sqrt(top * (1 - top) / (count - 1)));
    }

    private static String pct(float f) {
        return String.format(Locale.ROOT, "%4.1f%%", 100 * f);
    }
}

package org.jacap.bench.eval;

import java.util.List;

/**
 * Track A for one document and one (policy, ratio): the per-token KL values and the document's
 * means. ΔNLL = mean(−log q(true)) − mean(−log p(true)), positive when compression hurts.
 */
public record DocumentFidelity(double[] tokenKl, double meanKl, double top1Agreement, double deltaNll) {

    public DocumentFidelity {
        tokenKl = tokenKl.clone();
    }

    @Override
    public double[] tokenKl() {
        return tokenKl.clone();
    }

    public static DocumentFidelity of(List<TokenComparison.Score> scores) {
        if (scores.isEmpty()) {
            throw new IllegalArgumentException("no tokens to score");
        }
        double[] kl = new double[scores.size()];
        double klSum = 0;
        double nllFull = 0;
        double nllCompressed = 0;
        int same = 0;
        for (int i = 0; i < kl.length; i++) {
            TokenComparison.Score s = scores.get(i);
            kl[i] = s.kl();
            klSum += s.kl();
            nllFull += s.nllFull();
            nllCompressed += s.nllCompressed();
            same += s.sameTop1() ? 1 : 0;
        }
        int n = kl.length;
        return new DocumentFidelity(kl, klSum / n, (double) same / n, (nllCompressed - nllFull) / n);
    }
}

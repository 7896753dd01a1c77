package org.jacap.sampling;

/**
 * Drops candidates whose probability is below {@code p} × the top probability, i.e. whose logit is
 * below max + ln p; needs no sort. p ≤ 0 keeps everything.
 */
public record MinP(float p) implements SamplingStage {

    @Override
    public void apply(Candidates c, TokenHistory recent) {
        if (p <= 0 || c.size() <= 1) {
            return;
        }
        c.retainAtLeast(c.maxLogit() + (float) Math.log(p));
    }
}

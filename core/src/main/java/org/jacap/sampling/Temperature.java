package org.jacap.sampling;

/** Divides the logits by t (&gt; 0): t &lt; 1 sharpens the distribution, t &gt; 1 flattens it. */
public record Temperature(float t) implements SamplingStage {

    public Temperature {
        if (!(t > 0) || !Float.isFinite(t)) {
            throw new IllegalArgumentException("temperature stage needs t > 0 (use Greedy for 0), got " + t);
        }
    }

    @Override
    public void apply(Candidates c, TokenHistory recent) {
        if (t == 1.0f) {
            return;
        }
        for (int i = 0; i < c.size(); i++) {
            c.setLogit(i, c.logit(i) / t); // order-preserving: a sorted prefix stays sorted
        }
    }
}

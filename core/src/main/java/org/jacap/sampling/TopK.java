package org.jacap.sampling;

/** Keeps the k highest logits (ties at the boundary → lower ids); k ≤ 0 keeps everything. */
public record TopK(int k) implements SamplingStage {

    @Override
    public void apply(Candidates c, TokenHistory recent) {
        if (k <= 0 || k >= c.size()) {
            return;
        }
        c.sortTop(k); // quickselect + sort of the k survivors, not of the whole vocabulary
        c.truncate(k);
    }
}

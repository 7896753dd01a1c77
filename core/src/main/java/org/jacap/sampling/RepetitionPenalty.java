package org.jacap.sampling;

/**
 * llama.cpp's repetition penalty: every distinct token among the last {@code lastN} of the context
 * has its logit divided by {@code penalty} when positive and multiplied by it when negative.
 */
public record RepetitionPenalty(float penalty, int lastN) implements SamplingStage {

    @Override
    public void apply(Candidates c, TokenHistory recent) {
        if (penalty == 1.0f || lastN == 0 || recent.size() == 0) {
            return;
        }
        int n = Math.min(recent.size(), lastN < 0 ? recent.size() : lastN);
        c.newMarks();
        if (c.isIdentity()) { // fresh logits: index by id, touch only the recent tokens
            for (int i = recent.size() - n; i < recent.size(); i++) {
                int id = recent.get(i);
                if (c.mark(id)) {
                    int at = c.indexOfIdentity(id);
                    c.setLogit(at, penalize(c.logit(at)));
                }
            }
        } else {
            for (int i = recent.size() - n; i < recent.size(); i++) {
                c.mark(recent.get(i));
            }
            for (int i = 0; i < c.size(); i++) {
                if (c.isMarked(c.id(i))) {
                    c.setLogit(i, penalize(c.logit(i)));
                }
            }
        }
        c.invalidateOrder();
    }

    private float penalize(float logit) {
        return logit > 0 ? logit / penalty : logit * penalty;
    }
}

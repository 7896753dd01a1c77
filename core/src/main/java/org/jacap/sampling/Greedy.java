package org.jacap.sampling;

import java.util.random.RandomGenerator;

/** The highest logit; ties go to the lowest token id. */
public record Greedy() implements TokenChooser {

    @Override
    public int choose(Candidates c, RandomGenerator random) {
        if (c.isSorted()) {
            return c.id(0);
        }
        int best = c.id(0);
        float bestLogit = c.logit(0);
        for (int i = 1; i < c.size(); i++) {
            float l = c.logit(i);
            if (l > bestLogit || (l == bestLogit && c.id(i) < best)) {
                bestLogit = l;
                best = c.id(i);
            }
        }
        return best;
    }
}

package org.jacap.sampling;

import java.util.random.RandomGenerator;

/** Draws a token with probability softmax(logits) over the remaining candidates. */
public record RandomDraw() implements TokenChooser {

    @Override
    public int choose(Candidates c, RandomGenerator random) {
        c.softmax();
        double u = random.nextDouble();
        double cumulative = 0;
        int last = c.size() - 1;
        for (int i = 0; i < last; i++) {
            cumulative += c.prob(i);
            if (u < cumulative) {
                return c.id(i);
            }
        }
        return c.id(last); // rounding left u beyond the running sum
    }
}

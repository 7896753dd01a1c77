package org.jacap.sampling;

import java.util.random.RandomGenerator;

/** The last link of the chain: picks one token among the remaining candidates. */
public sealed interface TokenChooser permits Greedy, RandomDraw {

    int choose(Candidates candidates, RandomGenerator random);
}

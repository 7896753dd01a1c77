package org.jacap.sampling;

/** One step of the sampling chain: reshapes or narrows the candidates, never picks the token. */
public sealed interface SamplingStage permits RepetitionPenalty, TopK, TopP, MinP, Temperature {

    /**
     * @param candidates the tokens still in the running (changed in place)
     * @param recent     the most recent tokens of the context, oldest first
     */
    void apply(Candidates candidates, TokenHistory recent);
}

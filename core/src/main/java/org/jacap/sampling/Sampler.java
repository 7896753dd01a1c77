package org.jacap.sampling;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A sampling chain: stages that narrow the candidates, then a chooser. Owns its buffers, its
 * random generator and the recent-token history, so {@link #sample} allocates nothing.
 * One sampler per generation; not thread-safe.
 */
public final class Sampler {
    private final SamplingStage[] stages;
    private final TokenChooser chooser;
    private final TokenHistory history;
    private final Candidates candidates;
    private final SplittableRandom random;
    private final long seed;

    /**
     * @param historyCapacity how many recent tokens to remember for the stages that use them
     * @param seed            seed of the random draw (any value, including {@link SamplerConfig#RANDOM_SEED})
     */
    public Sampler(List<SamplingStage> stages, TokenChooser chooser, int vocabSize, int historyCapacity, long seed) {
        this.stages = stages.toArray(SamplingStage[]::new);
        this.chooser = chooser;
        this.history = new TokenHistory(historyCapacity);
        this.candidates = new Candidates(vocabSize);
        this.random = new SplittableRandom(seed);
        this.seed = seed;
    }

    /**
     * The chain llama.cpp runs for these settings: penalties, top-k, top-p, min-p, temperature,
     * draw; or penalties then greedy at temperature 0.
     *
     * @param contextLength what {@code repeatLastN = -1} stands for
     */
    public static Sampler fromConfig(SamplerConfig config, int vocabSize, int contextLength) {
        List<SamplingStage> stages = new ArrayList<>();
        int lastN = config.repeatLastN() < 0 ? contextLength : config.repeatLastN();
        if (config.hasRepeatPenalty()) {
            stages.add(new RepetitionPenalty(config.repeatPenalty(), lastN));
        }
        long seed = config.seed() == SamplerConfig.RANDOM_SEED ? freshSeed() : config.seed();
        if (config.isGreedy()) {
            return new Sampler(stages, new Greedy(), vocabSize, stages.isEmpty() ? 0 : lastN, seed);
        }
        if (config.topK() > 0) {
            stages.add(new TopK(config.topK()));
        }
        if (config.topP() < 1) {
            stages.add(new TopP(config.topP()));
        }
        if (config.minP() > 0) {
            stages.add(new MinP(config.minP()));
        }
        stages.add(new Temperature(config.temperature()));
        return new Sampler(stages, new RandomDraw(), vocabSize, config.hasRepeatPenalty() ? lastN : 0, seed);
    }

    /** Picks the next token from the logits at {@code logits[offset, offset + vocabSize)}. */
    public int sample(float[] logits, int offset) {
        candidates.reset(logits, offset);
        for (SamplingStage stage : stages) {
            stage.apply(candidates, history);
        }
        return chooser.choose(candidates, random);
    }

    /** Records a token of the context (prompt or generated) for the repetition penalty. */
    public void accept(int token) {
        history.add(token);
    }

    /** How many recent tokens the chain looks at (0 when no stage uses them). */
    public int historyCapacity() {
        return history.capacity();
    }

    /** The seed actually in use (the chosen one when the config asked for a random seed). */
    public long seed() {
        return seed;
    }

    public List<SamplingStage> stages() {
        return List.of(stages);
    }

    public TokenChooser chooser() {
        return chooser;
    }

    /** The candidates left by the last {@link #sample} call (for inspection and tests). */
    public Candidates lastCandidates() {
        return candidates;
    }

    private static long freshSeed() {
        // seeds stay in [0, 2^32) so they can be printed and passed back as --seed
        return new SplittableRandom().nextLong() & 0xffffffffL;
    }
}

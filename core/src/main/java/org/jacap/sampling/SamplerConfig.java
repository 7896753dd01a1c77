package org.jacap.sampling;

import org.jacap.JacapException;

/**
 * How the next token is chosen, with llama.cpp's defaults and meanings.
 *
 * <p>The chain built from it runs: repetition penalty → top-k → top-p → min-p → temperature →
 * random draw. A temperature of 0 means greedy (penalties still apply; the truncation stages
 * cannot change the argmax, so they are skipped).
 *
 * @param temperature   logits are divided by it before the draw; 0 = greedy
 * @param topK          keep the k most likely tokens; 0 = off
 * @param topP          keep the smallest set whose probability reaches p; 1 = off
 * @param minP          drop tokens less likely than minP × the most likely one; 0 = off
 * @param repeatPenalty divide positive / multiply negative logits of recent tokens; 1 = off
 * @param repeatLastN   how many recent tokens (prompt included) the penalty looks at; 0 = off,
 *                      -1 = the whole context
 * @param seed          seed of the random draw; {@link #RANDOM_SEED} picks one per sampler
 */
public record SamplerConfig(
        float temperature, int topK, float topP, float minP, float repeatPenalty, int repeatLastN, long seed) {

    /** Asks for a fresh seed per sampler; the one chosen is reported by {@link Sampler#seed()}. */
    public static final long RANDOM_SEED = -1L;

    private static final SamplerConfig DEFAULTS = new SamplerConfig(0.8f, 40, 0.95f, 0.05f, 1.0f, 64, RANDOM_SEED);

    public SamplerConfig {
        require(Float.isFinite(temperature) && temperature >= 0, "temperature must be >= 0 (got " + temperature + ")");
        require(topK >= 0, "top-k must be >= 0 (got " + topK + "; 0 = off)");
        require(topP > 0 && topP <= 1, "top-p must be in (0, 1] (got " + topP + "; 1 = off)");
        require(minP >= 0 && minP <= 1, "min-p must be in [0, 1] (got " + minP + "; 0 = off)");
        require(
                Float.isFinite(repeatPenalty) && repeatPenalty > 0,
                "repeat penalty must be > 0 (got " + repeatPenalty + "; 1 = off)");
        require(repeatLastN >= -1, "repeat-last-n must be >= -1 (got " + repeatLastN + "; 0 = off, -1 = context)");
    }

    /** llama.cpp's defaults: temp 0.8, top-k 40, top-p 0.95, min-p 0.05, no repetition penalty. */
    public static SamplerConfig defaults() {
        return DEFAULTS;
    }

    /** Always the most likely token (ties → lowest id). */
    public static SamplerConfig greedy() {
        return DEFAULTS.withTemperature(0);
    }

    public boolean isGreedy() {
        return temperature == 0;
    }

    public boolean hasRepeatPenalty() {
        return repeatPenalty != 1.0f && repeatLastN != 0;
    }

    public SamplerConfig withTemperature(float t) {
        return new SamplerConfig(t, topK, topP, minP, repeatPenalty, repeatLastN, seed);
    }

    public SamplerConfig withTopK(int k) {
        return new SamplerConfig(temperature, k, topP, minP, repeatPenalty, repeatLastN, seed);
    }

    public SamplerConfig withTopP(float p) {
        return new SamplerConfig(temperature, topK, p, minP, repeatPenalty, repeatLastN, seed);
    }

    public SamplerConfig withMinP(float p) {
        return new SamplerConfig(temperature, topK, topP, p, repeatPenalty, repeatLastN, seed);
    }

    public SamplerConfig withRepeatPenalty(float penalty, int lastN) {
        return new SamplerConfig(temperature, topK, topP, minP, penalty, lastN, seed);
    }

    public SamplerConfig withSeed(long s) {
        return new SamplerConfig(temperature, topK, topP, minP, repeatPenalty, repeatLastN, s);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new JacapException(message);
        }
    }
}

package org.jacap.bench.throughput;

/**
 * One llama-bench test: a prefill of {@code promptTokens} ("pp512") or {@code genTokens}
 * single-token decodes ("tg128"); both set means the prefill then the decodes are timed together.
 */
public record BenchCase(int promptTokens, int genTokens) {

    public BenchCase {
        if (promptTokens < 0 || genTokens < 0 || promptTokens + genTokens == 0) {
            throw new IllegalArgumentException("a test needs a positive prompt or generation length");
        }
    }

    public static BenchCase prompt(int tokens) {
        return new BenchCase(tokens, 0);
    }

    public static BenchCase generation(int tokens) {
        return new BenchCase(0, tokens);
    }

    /** Tokens processed per repetition: tokens/s = this / seconds. */
    public int tokens() {
        return promptTokens + genTokens;
    }

    /** Context positions the test fills (the KV cache it needs). */
    public int contextLength() {
        return promptTokens + genTokens;
    }

    public String name() {
        if (genTokens == 0) {
            return "pp" + promptTokens;
        }
        if (promptTokens == 0) {
            return "tg" + genTokens;
        }
        return "pp" + promptTokens + "+tg" + genTokens;
    }
}

package org.jacap.bench.throughput;

/**
 * One llama-bench test: a prefill of {@code promptTokens} ("pp512") or {@code genTokens}
 * single-token decodes ("tg128"); both set means the prefill then the decodes are timed together.
 */
public record BenchTest(int promptTokens, int genTokens) {

    public BenchTest {
        if (promptTokens < 0 || genTokens < 0 || promptTokens + genTokens == 0) {
            throw new IllegalArgumentException("a test needs a positive prompt or generation length");
        }
    }

    public static BenchTest prompt(int tokens) {
        return new BenchTest(tokens, 0);
    }

    public static BenchTest generation(int tokens) {
        return new BenchTest(0, tokens);
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

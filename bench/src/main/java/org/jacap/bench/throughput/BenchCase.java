package org.jacap.bench.throughput;

/**
 * One llama-bench test: a prefill of {@code promptTokens} ("pp512") or {@code genTokens}
 * single-token decodes ("tg128"); both set means the prefill then the decodes are timed together.
 * With {@code depth} > 0 the test runs after a context of that many tokens, prefilled untimed
 * ("tg128 @ d4096", llama-bench's {@code -d}): how fast a long conversation still goes.
 */
public record BenchCase(int promptTokens, int genTokens, int depth) {

    public BenchCase {
        if (promptTokens < 0 || genTokens < 0 || promptTokens + genTokens == 0) {
            throw new IllegalArgumentException("a test needs a positive prompt or generation length");
        }
        if (depth < 0) {
            throw new IllegalArgumentException("the depth must be >= 0, got " + depth);
        }
    }

    public BenchCase(int promptTokens, int genTokens) {
        this(promptTokens, genTokens, 0);
    }

    public static BenchCase prompt(int tokens) {
        return new BenchCase(tokens, 0);
    }

    public static BenchCase generation(int tokens) {
        return new BenchCase(0, tokens);
    }

    /** This test after a context of {@code tokens} tokens. */
    public BenchCase atDepth(int tokens) {
        return new BenchCase(promptTokens, genTokens, tokens);
    }

    /** Tokens processed per repetition: tokens/s = this / seconds. */
    public int tokens() {
        return promptTokens + genTokens;
    }

    /** Context positions the test fills (the KV cache it needs), the depth included. */
    public int contextLength() {
        return depth + promptTokens + genTokens;
    }

    /** llama-bench's name: "pp512", "tg128", "pp512+tg128", with " @ d4096" at a depth. */
    public String name() {
        String base;
        if (genTokens == 0) {
            base = "pp" + promptTokens;
        } else if (promptTokens == 0) {
            base = "tg" + genTokens;
        } else {
            base = "pp" + promptTokens + "+tg" + genTokens;
        }
        return depth == 0 ? base : base + " @ d" + depth;
    }
}

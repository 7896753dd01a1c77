package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * Encodes about 1 MB of mixed text with the GPT-2 vocabulary and reports the rate. Nothing is
 * timed-asserted (speed belongs to benchmarks); the test checks the result round-trips and keeps
 * an eye on accidental quadratic behaviour (a quadratic merge would take minutes here).
 */
class EncodingThroughputTest {
    static final String[] WORDS = {
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "lazy",
        "dog",
        "tokenizer",
        "runtime",
        "Java",
        "vectorised",
        "kernels",
        "cache",
        "eviction",
        "capacity",
        "Jacobian",
        "information",
        "llama",
        "model",
        "12345",
        "3.14159",
        "don't",
        "we're",
        "naïve",
        "café",
        "Grüße",
        "日本語",
        "中文",
        "русский",
        "🦙",
        "😶‍🌫️",
        "(x)",
        "a->b",
        "==",
        "// comment",
        "\n",
        "\n\n",
        "\t",
        "    ",
        "!",
        "?",
        ",",
        "."
    };

    static String text(int bytes, long seed) {
        Random random = new Random(seed);
        StringBuilder sb = new StringBuilder(bytes + 64);
        while (sb.toString().getBytes(StandardCharsets.UTF_8).length < bytes) {
            for (int i = 0; i < 4096; i++) {
                String w = WORDS[random.nextInt(WORDS.length)];
                sb.append(w);
                if (random.nextInt(4) != 0 && !w.isBlank()) {
                    sb.append(' ');
                }
                if (random.nextInt(50) == 0) {
                    sb.append(Integer.toHexString(random.nextInt())); // rare words defeat the cache
                }
            }
        }
        return sb.toString();
    }

    @Test
    void oneMegabyteWithGpt2() {
        Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab("gpt-2"));
        String text = text(1 << 20, 42);
        int mb = text.getBytes(StandardCharsets.UTF_8).length;
        tok.encode(text.substring(0, 100_000), false, false); // warm up
        long start = System.nanoTime();
        int[] ids = tok.encode(text, false, false);
        long ns = System.nanoTime() - start;
        System.out.printf(
                "gpt-2: %d bytes -> %d tokens in %.0f ms (%.2f MB/s)%n",
                mb, ids.length, ns / 1e6, mb / 1e6 / (ns / 1e9));
        assertThat(ids.length).isGreaterThan(mb / 8);
        StreamingDecoder stream = tok.streamingDecoder();
        StringBuilder sb = new StringBuilder(text.length());
        for (int id : ids) {
            sb.append(stream.accept(id));
        }
        assertThat(sb.append(stream.flush()).toString()).isEqualTo(text);
    }

    @Test
    void oneMegabyteWithSentencePiece() {
        Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab("llama-spm"));
        String text = text(1 << 20, 7);
        long start = System.nanoTime();
        int[] ids = tok.encode(text, false, false);
        long ns = System.nanoTime() - start;
        System.out.printf("llama-spm: %d chars -> %d tokens in %.0f ms%n", text.length(), ids.length, ns / 1e6);
        assertThat(tok.decode(ids)).isEqualTo(text);
    }
}

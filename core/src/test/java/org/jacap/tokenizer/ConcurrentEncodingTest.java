package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** One tokenizer shared by several threads gives the same ids as a single thread (the word cache is shared). */
class ConcurrentEncodingTest {

    @Test
    void sharedTokenizersAreThreadSafe() throws Exception {
        for (String vocab : List.of("gpt-2", "llama-spm")) {
            Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab(vocab));
            String text = EncodingThroughputTest.text(64 * 1024, 11);
            int[] expected = tok.encode(text, false, false);
            try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
                List<Future<int[]>> results = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    results.add(pool.submit(() -> tok.encode(text, false, false)));
                }
                for (Future<int[]> f : results) {
                    assertArrayEquals(expected, f.get(), vocab); // AssertJ's containsExactly is quadratic on 20k ids
                }
            }
        }
    }

    @Test
    void wordCacheHitsOnlyOnTheSameWord() {
        WordCache cache = new WordCache(4);
        int[] cps = "hello world".codePoints().toArray();
        int h = WordCache.hash(cps, 0, 5);
        assertThat(cache.get(cps, 0, 5, h)).isNull();
        cache.put(cps, 0, 5, h, new int[] {1, 2});
        assertThat(cache.get(cps, 0, 5, h)).containsExactly(1, 2);
        assertThat(cache.get(cps, 6, 11, WordCache.hash(cps, 6, 11))).isNull();
        assertThat(cache.get(cps, 0, 4, WordCache.hash(cps, 0, 4))).isNull();
    }
}

package org.jacap.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RankKeysTest {

    @Test
    void keysOrderByDescendingLogitThenAscendingIdAndRoundTrip() {
        float[] values = {
            Float.NEGATIVE_INFINITY,
            -1e30f,
            -2.5f,
            -Float.MIN_VALUE,
            0f,
            Float.MIN_VALUE,
            1f,
            3e38f,
            Float.POSITIVE_INFINITY
        };
        for (int i = 0; i + 1 < values.length; i++) {
            assertThat(RankKeys.key(values[i + 1], 5)).isLessThan(RankKeys.key(values[i], 0));
        }
        assertThat(RankKeys.key(1f, 3)).isLessThan(RankKeys.key(1f, 4));
        for (float v : values) {
            long k = RankKeys.key(v, 123_456);
            assertThat(RankKeys.logit(k)).isEqualTo(v);
            assertThat(RankKeys.id(k)).isEqualTo(123_456);
        }
    }

    @Test
    void sortAndSelectAgreeWithArraysSort() {
        SplittableRandom r = new SplittableRandom(3);
        for (int n : new int[] {1, 2, 3, 25, 26, 100, 1000, 50_000}) {
            long[] data = new long[n];
            for (int i = 0; i < n; i++) {
                data[i] = r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(50); // duplicates and extremes
            }
            long[] expected = data.clone();
            Arrays.sort(expected);

            long[] sorted = data.clone();
            RankKeys.sort(sorted, 0, n);
            assertThat(sorted).isEqualTo(expected);

            for (int k : new int[] {0, 1, n / 3, n - 1, n}) {
                long[] selected = data.clone();
                RankKeys.select(selected, 0, n, k);
                long[] head = Arrays.copyOf(selected, k);
                Arrays.sort(head);
                assertThat(head).as("n=%d k=%d", n, k).isEqualTo(Arrays.copyOf(expected, k));
            }
        }
    }

    @Test
    void sortHandlesAlreadySortedAndReversedInput() {
        int n = 100_000;
        long[] up = new long[n];
        long[] down = new long[n];
        for (int i = 0; i < n; i++) {
            up[i] = i;
            down[i] = n - i;
        }
        RankKeys.sort(down, 0, n);
        RankKeys.select(up, 0, n, 40);
        assertThat(down[0]).isEqualTo(1);
        assertThat(down[n - 1]).isEqualTo(n);
        assertThat(Arrays.stream(up, 0, 40).max().getAsLong()).isEqualTo(39);
    }
}

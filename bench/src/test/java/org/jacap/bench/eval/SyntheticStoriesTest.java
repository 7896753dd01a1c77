package org.jacap.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SyntheticStoriesTest {
    @Test
    void storiesAreSeededAndVaried() {
        SyntheticStories a = new SyntheticStories(1);
        assertThat(a.story(3)).isEqualTo(new SyntheticStories(1).story(3));
        assertThat(a.story(3)).isNotEqualTo(a.story(4)).isNotEqualTo(new SyntheticStories(2).story(3));
        assertThat(a.story(0))
                .startsWith("Once upon a time, there was a ")
                .endsWith("They learned that sharing is good.");
        assertThat(a.story(0).split("\\. ").length).isGreaterThan(5);
    }
}

package org.jacap.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StopStringFilterTest {

    /** Feeds the pieces one by one and returns what was shown, joined with '|' between calls. */
    private static String run(List<String> stops, String... pieces) {
        StopStringFilter f = new StopStringFilter(stops);
        StringBuilder shown = new StringBuilder();
        for (String p : pieces) {
            shown.append(f.accept(p)).append('|');
            if (f.matched()) {
                return shown.append("STOP").toString();
            }
        }
        return shown.append(f.flush()).toString();
    }

    @Test
    void textWithoutStopStringsPassesStraightThrough() {
        assertThat(run(List.of(), "a", "b")).isEqualTo("a|b|");
    }

    @Test
    void aStopStringSplitAcrossPiecesIsHeldBackAndNeverShown() {
        assertThat(run(List.of("User:"), "Hello", " Us", "er", ": hi")).isEqualTo("Hello| |||STOP");
    }

    @Test
    void heldTextIsReleasedWhenItTurnsOutNotToBeAStop() {
        assertThat(run(List.of("User:"), "Hi", " Us", "ually")).isEqualTo("Hi| |Usually|");
    }

    @Test
    void heldTextIsReleasedAtTheEnd() {
        assertThat(run(List.of("User:"), "Hi Use")).isEqualTo("Hi |Use");
    }

    @Test
    void theTextBeforeAStopInsideOnePieceIsShown() {
        assertThat(run(List.of("\n\n"), "end.\n\nNext")).isEqualTo("end.|STOP");
    }

    @Test
    void theEarliestOfSeveralStopsWins() {
        assertThat(run(List.of("cd", "b"), "abcd")).isEqualTo("a|STOP");
        assertThat(run(List.of("bc", "abcx"), "ab", "c")).isEqualTo("|a|STOP");
    }

    @Test
    void overlappingPrefixesKeepTheLongestCandidate() {
        // "aab": after "aa" both "a" and "aa" could start it; the longer must be held
        assertThat(run(List.of("aab"), "xa", "a", "a", "b")).isEqualTo("x||a||STOP");
    }
}

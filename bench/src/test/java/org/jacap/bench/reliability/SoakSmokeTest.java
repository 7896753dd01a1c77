package org.jacap.bench.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * The soak test in small (part of every build): the same two parts with a few thousand tokens.
 * RSS flatness is only judged by the full run ({@code -Psoak}), where the warm-up is long enough.
 */
class SoakSmokeTest {
    @Test
    void aBudgetedStreamAndConcurrentSessionsRunAndReplayIdentically() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Soak.Report r = Soak.run(
                new Soak.Settings(Fixtures.model("stories260K.gguf"), 3000, 64, "streaming", 3, 4, 24, 1, 17),
                new PrintStream(log, true, StandardCharsets.UTF_8));
        System.out.print(log.toString(StandardCharsets.UTF_8));
        assertThat(r.streamTokens()).isEqualTo(3000);
        assertThat(r.rssSamples()).hasSize(3);
        assertThat(r.concurrentTokens()).isPositive().isLessThanOrEqualTo(3 * 4 * 24);
        assertThat(r.replayedTurns()).isEqualTo(8);
        assertThat(r.mismatches()).isEmpty();
    }
}

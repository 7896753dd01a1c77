package org.jacap.bench.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The full soak test, run by {@code ./mvnw -Psoak test} (not by the default build). Properties:
 * {@code jacap.soak.model} (stories260K), {@code jacap.soak.tokens} (100000),
 * {@code jacap.soak.budget} (256), {@code jacap.soak.sessions} (8), {@code jacap.soak.turns} (60),
 * {@code jacap.soak.threads} (1: the fixture model is too small to share out).
 */
class SoakCampaign {
    @Test
    void soak() throws Exception {
        Path fixtures = Path.of(System.getProperty("jacap.fixtures", "../shared/fixtures"));
        Soak.Settings s = new Soak.Settings(
                Path.of(System.getProperty(
                        "jacap.soak.model",
                        fixtures.resolve("models/stories260K.gguf").toString())),
                Integer.getInteger("jacap.soak.tokens", 100_000),
                Integer.getInteger("jacap.soak.budget", 256),
                System.getProperty("jacap.soak.policy", "streaming"),
                Integer.getInteger("jacap.soak.sessions", 8),
                Integer.getInteger("jacap.soak.turns", 60),
                Integer.getInteger("jacap.soak.turnTokens", 128),
                Integer.getInteger("jacap.soak.threads", 1),
                Long.getLong("jacap.soak.seed", 17));
        Soak.Report r = Soak.run(s, System.out);
        assertThat(r.mismatches()).isEmpty();
        assertThat(r.rssGrowth()).as("RSS growth after warm-up").isLessThanOrEqualTo(0.05);
    }
}

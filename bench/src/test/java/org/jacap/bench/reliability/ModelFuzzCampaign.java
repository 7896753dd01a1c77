package org.jacap.bench.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * The full model fuzz campaign, run by {@code ./mvnw -Pfuzz test} (not by the default build: its
 * name is outside surefire's test patterns). Properties: {@code jacap.fuzz.seed},
 * {@code jacap.fuzz.cases} (100000), {@code jacap.fuzz.minutes} (60), {@code jacap.fuzz.realShare} (0.03).
 */
class ModelFuzzCampaign {
    @Test
    void campaign() throws IOException {
        ModelFuzz.Settings s = new ModelFuzz.Settings(
                Long.getLong("jacap.fuzz.seed", ModelFuzz.DEFAULT_SEED),
                Integer.getInteger("jacap.fuzz.cases", 100_000),
                Double.parseDouble(System.getProperty("jacap.fuzz.minutes", "60")),
                Double.parseDouble(System.getProperty("jacap.fuzz.realShare", "0.03")),
                Path.of(System.getProperty("jacap.fixtures", "../shared/fixtures")),
                Fixtures.realModelsDir(),
                null);
        ModelFuzz.Report r = ModelFuzz.run(s, System.out);
        assertThat(r.crashes()).isEmpty();
    }
}

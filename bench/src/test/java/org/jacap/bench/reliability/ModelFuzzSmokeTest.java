package org.jacap.bench.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * The model fuzz campaign in small (part of every build): fixture files only, a few hundred
 * cases. The full campaign is {@code -Pfuzz} (see docs/reliability.md).
 */
class ModelFuzzSmokeTest {
    @Test
    void mutatedFixturesLoadRunOrFailWithADocumentedException() throws IOException {
        Path fixtures = Fixtures.model("stories260K.gguf").getParent().getParent();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ModelFuzz.Report r = ModelFuzz.run(
                new ModelFuzz.Settings(ModelFuzz.DEFAULT_SEED, 400, 1.5, 0, fixtures, null, null),
                new PrintStream(log, true, StandardCharsets.UTF_8));
        System.out.print(log.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> l.startsWith("model fuzz:") || l.startsWith("CRASH"))
                .reduce("", (a, b) -> a + b + "\n"));
        assertThat(r.crashes()).isEmpty();
        assertThat(r.cases()).isPositive();
        if (r.cases() >= 200) {
            // Every kind of outcome is reached, or the mutations are not exercising the checks.
            assertThat(r.count(FuzzOutcome.RAN)).isGreaterThan(r.cases() / 10);
            assertThat(r.count(FuzzOutcome.FORMAT_REJECTED)).isGreaterThan(r.cases() / 10);
            assertThat(r.count(FuzzOutcome.FORWARD_REJECTED)).isPositive();
        }
    }

    @Test
    void aCaseSeedReproducesItsOutcome() throws IOException {
        Path fixtures = Fixtures.model("stories260K.gguf").getParent().getParent();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        for (int i = 0; i < 2; i++) { // each run reads the whole corpus again: two cases are enough
            long seed = ModelFuzz.caseSeed(ModelFuzz.DEFAULT_SEED, i);
            ModelFuzz.Report a = ModelFuzz.run(new ModelFuzz.Settings(0, 1, 1, 0, fixtures, null, seed), quiet);
            ModelFuzz.Report b = ModelFuzz.run(new ModelFuzz.Settings(0, 1, 1, 0, fixtures, null, seed), quiet);
            assertThat(a.bySample().keySet()).isEqualTo(b.bySample().keySet());
            for (FuzzOutcome o : FuzzOutcome.values()) {
                assertThat(a.count(o)).as("case %d %s", i, o).isEqualTo(b.count(o));
            }
        }
    }
}

package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code jacap serve}: bad flags end in one line before anything is loaded or bound. */
class ServeCommandTest {

    @Test
    void aNonLoopbackHostIsRefused() {
        CliRun r = CliRun.of("serve", "-m", "missing.gguf", "--host", "8.8.8.8");
        assertThat(r.code()).isNotZero();
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .contains("--host must be a loopback address such as 127.0.0.1, ::1 or localhost (got '8.8.8.8')");
    }

    @Test
    void badNumbersNameTheirFlag() {
        CliRun parallel = CliRun.of("serve", "-m", "missing.gguf", "--parallel", "0");
        assertThat(parallel.errLines()).singleElement().asString().contains("--parallel must be in [1, 256] (got 0)");
        CliRun port = CliRun.of("serve", "-m", "missing.gguf", "--port", "70000");
        assertThat(port.errLines()).singleElement().asString().contains("--port must be in [0, 65535] (got 70000)");
        CliRun key = CliRun.of("serve", "-m", "missing.gguf", "--api-key", " ");
        assertThat(key.errLines()).singleElement().asString().contains("--api-key must not be empty");
    }

    @Test
    void aMissingModelIsOneLineAndTheServerStops() {
        CliRun r = CliRun.of("serve", "-m", "missing.gguf", "--port", "0");
        assertThat(r.code()).isEqualTo(1);
        String[] lines = r.errLines();
        assertThat(lines[0]).startsWith("jacap: listening on http://127.0.0.1:");
        assertThat(lines[lines.length - 1]).isEqualTo("jacap: file not found: missing.gguf");
    }
}

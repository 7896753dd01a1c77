package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** {@code --kv-*} flags of {@code jacap run} and {@code jacap chat}. */
class KvOptionsTest {

    @Test
    void ratioCompressesThePromptAndTheSummaryShowsPolicyCacheAndEvictionTime() {
        CliRun r = CliRun.line(
                "run -m {} -p {} -n 32 --temp 0 -t 1 --kv-policy jacap --kv-ratio 0.5",
                CliRun.stories(),
                "Once upon a time");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("Once upon a time");
        assertThat(r.err())
                .contains("KV policy = jacap:relevance=")
                .contains(",heads=capacity / ada:alpha=0.2, ratio 0.5")
                .contains("KV cache =")
                .contains("eviction time =")
                .contains("1 events")
                .contains("forward time =");
    }

    @Test
    void aBudgetBoundsTheCacheWhileGenerating() {
        CliRun r = CliRun.line(
                "run -m {} -p {} -n 120 --temp 0 -t 1 --kv-policy capkv:tau=4 --kv-allocator uniform"
                        + " --kv-budget 24 --kv-slack 8 --kv-protect 4,8",
                CliRun.stories(),
                "Once upon a time");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err())
                .contains("KV policy = capkv:n_sink=4,tau=4.0")
                .contains("protect_sinks=4,protect_recent=8")
                .contains("budget 24 + slack 8")
                .contains("peak 32 per head")
                .contains("120 tokens generated");
    }

    @Test
    void withoutAPolicyTheCacheLineStillShowsItsSize() {
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once", "-n", "4", "--temp", "0", "-t", "1");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("KV cache =").doesNotContain("KV policy").doesNotContain("eviction time");
    }

    @Test
    void badKvFlagsAreOneLineWithAHelpHint() {
        String m = "/nonexistent.gguf"; // flags are checked before the model is opened
        String[][] cases = {
            {"--kv-policy", "nope", "--kv-ratio", "0.5"},
            {"--kv-policy", "jacap:tau=hot", "--kv-ratio", "0.5"},
            {"--kv-policy", "snapkv:windw=3", "--kv-ratio", "0.5"},
            {"--kv-policy", "jacap", "--kv-ratio", "1"},
            {"--kv-policy", "jacap", "--kv-ratio", "-0.2"},
            {"--kv-policy", "jacap", "--kv-ratio", "half"},
            {"--kv-policy", "jacap"},
            {"--kv-ratio", "0.5"},
            {"--kv-policy", "none", "--kv-budget", "64"},
            {"--kv-policy", "jacap", "--kv-budget", "0"},
            {"--kv-policy", "jacap", "--kv-ratio", "0.5", "--kv-slack", "8"},
            {"--kv-policy", "jacap", "--kv-budget", "64", "--kv-slack", "0"},
            {"--kv-policy", "jacap", "--kv-budget", "64", "--kv-allocator", "lopsided"},
            {"--kv-policy", "jacap", "--kv-budget", "64", "--kv-protect", "4"},
            {"--kv-policy", "jacap:protect_sinks=2", "--kv-budget", "64", "--kv-protect", "4,4"},
        };
        for (String[] bad : cases) {
            String[] args = Stream.concat(Stream.of("run", "-m", m, "-p=hi"), Arrays.stream(bad))
                    .toArray(String[]::new);
            CliRun r = CliRun.of(args);
            r.assertUsageError("run", String.join(" ", bad));
            assertThat(r.out()).isEmpty();
        }
        CliRun unknown = CliRun.of("run", "-m", m, "-p", "hi", "--kv-policy", "nope", "--kv-ratio", "0.5");
        assertThat(unknown.err()).contains("unknown KV eviction policy 'nope'").contains("capkv, jacap");
        CliRun ratio = CliRun.of("run", "-m", m, "-p", "hi", "--kv-policy", "jacap", "--kv-ratio", "1");
        assertThat(ratio.err()).contains("--kv-ratio must be in [0, 1), got 1.0");
    }

    @Test
    void chatTakesTheFlagsAndABudgetOutlivesTheCacheSize() {
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream("Hello there\nHello again\nOne more\n".getBytes(StandardCharsets.UTF_8)));
        try {
            CliRun r = CliRun.line(
                    "chat -m {} --temp 0 -n 24 -t 1 --kv-policy snapkv:window=8 --kv-budget 16", CliRun.stories());
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.err()).doesNotContain("overflow");
        } finally {
            System.setIn(saved);
        }
    }
}

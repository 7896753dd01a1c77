package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code -ctk/-ctv}: parsed in the CLI, one line for a bad value, the storage shows in the summary. */
class CacheTypeOptionsTest {
    private static final Pattern KV_LINE = Pattern.compile(
            "KV cache = +(\\d+) entries \\(peak \\d+ per head\\), ([0-9.]+) KiB in use, .+ allocated, (.+)");

    private static CliRun run(String... types) {
        String[] base = {"run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "16", "-t", "1"};
        String[] args = java.util.Arrays.copyOf(base, base.length + types.length);
        System.arraycopy(types, 0, args, base.length, types.length);
        return CliRun.of(args);
    }

    @Test
    void anUnknownTypeIsOneLineNamingTheFlag() {
        CliRun r = run("-ctk", "q4_0");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines())
                .singleElement()
                .asString()
                .isEqualTo("jacap: --cache-type-k: unknown KV cache type 'q4_0' (f32, f16 or q8_0)"
                        + " (see 'jacap run --help')");
        CliRun v = run("--cache-type-v", "bf16");
        assertThat(v.code()).isEqualTo(1);
        assertThat(v.errLines())
                .singleElement()
                .asString()
                .contains("--cache-type-v: unknown KV cache type 'bf16' (f32, f16 or q8_0)");
    }

    @Test
    void q8_0OnHeadsOfEightIsOneClearError() {
        // stories260K's heads have 8 dimensions; q8_0 blocks are 32 wide
        CliRun r = run("-ctv", "q8_0");
        assertThat(r.code()).isNotZero();
        assertThat(r.err())
                .contains("a q8_0 KV cache needs value head sizes that are multiples of 32; this model's are 8")
                .doesNotContain("\tat ");
    }

    @Test
    void theSummaryCountsTheStoredBytes() {
        // head dim 8: key + value + a 4-byte position; the summary rounds to 0.01 KiB
        checkBytes(run("-ctk", "f32", "-ctv", "f32"), "f32", 8 * 4 + 8 * 4 + 4);
        checkBytes(run(), "f16", 8 * 2 + 8 * 2 + 4);
        checkBytes(run("--cache-type-k", "f32"), "k=f32 v=f16", 8 * 4 + 8 * 2 + 4);
    }

    private static void checkBytes(CliRun r, String storage, int bytesPerEntry) {
        assertThat(r.code()).as(r.err()).isZero();
        Matcher m = KV_LINE.matcher(r.err());
        assertThat(m.find()).as(r.err()).isTrue();
        assertThat(m.group(3)).isEqualTo(storage);
        long entries = Long.parseLong(m.group(1));
        assertThat(entries).isEqualTo(5L * 4 * (5 + 16 - 1)); // 5 layers x 4 KV heads x the tokens evaluated
        assertThat(Double.parseDouble(m.group(2)))
                .isCloseTo(entries * bytesPerEntry / 1024.0, org.assertj.core.api.Assertions.within(0.006));
    }
}

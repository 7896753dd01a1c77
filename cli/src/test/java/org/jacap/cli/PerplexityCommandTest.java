package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jacap perplexity}: llama-perplexity's protocol, its base file and its KL statistics. */
class PerplexityCommandTest {
    @TempDir
    Path dir;

    /** A few thousand tokens of the tutorial text (stories260K has a 512-token vocabulary: many tokens). */
    private Path text(int chars) throws Exception {
        Path src = Fixtures.dir().resolve("realmodels/python-tutorial.txt");
        assumeTrue(Files.isRegularFile(src), "no " + src);
        Path t = dir.resolve("text.txt");
        Files.writeString(t, Files.readString(src).substring(0, chars));
        return t;
    }

    private static double finalEstimate(String out) {
        Matcher m = Pattern.compile("Final estimate: PPL = ([0-9.]+) \\+/- ([0-9.]+)")
                .matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Double.parseDouble(m.group(1));
    }

    @Test
    void printsRunningPerplexityPerChunkAndTheFinalEstimate() throws Exception {
        Path t = text(6000);
        CliRun run = CliRun.of(
                "perplexity", "-m", CliRun.stories(), "-f", t.toString(), "-c", "128", "--chunks", "3", "-t", "1");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).containsPattern("^\\[1\\][0-9]+\\.[0-9]{4},\\[2\\][0-9.]+,\\[3\\][0-9.]+,\\R");
        double ppl = finalEstimate(run.out());
        // The last running value is the final estimate (both are exp of the mean NLL over all chunks).
        Matcher last = Pattern.compile("\\[3\\]([0-9.]+),").matcher(run.out());
        assertThat(last.find()).isTrue();
        assertThat(Double.parseDouble(last.group(1))).isCloseTo(ppl, org.assertj.core.data.Offset.offset(1e-4));
        assertThat(ppl).isGreaterThan(1).isLessThan(512); // a trained model beats the uniform 512
        assertThat(run.err()).contains("n_ctx=128, 3 chunks");

        // Same command, same result (bit-identical reruns).
        CliRun again = CliRun.of(
                "perplexity", "-m", CliRun.stories(), "-f", t.toString(), "-c", "128", "--chunks", "3", "-t", "1");
        assertThat(again.out()).isEqualTo(run.out());
    }

    @Test
    void aBaseFileWrittenByOneRunIsReadByTheNext() throws Exception {
        Path t = text(6000);
        Path base = dir.resolve("stories.kld");
        CliRun write = CliRun.line(
                "perplexity -m {} -f {} -c 128 --chunks 2 --kl-divergence-base {} -t 1",
                CliRun.stories(),
                t.toString(),
                base.toString());
        assertThat(write.code()).as(write.err()).isZero();
        // 8-byte magic, n_ctx, n_vocab, n_chunk, 2·128 tokens, then 2·63 rows of 2·256+4 uint16.
        assertThat(Files.size(base)).isEqualTo(20L + 4 * 256 + 2L * 63 * (2 * 256 + 4) * 2);
        assertThat(Files.exists(dir.resolve("stories.kld.part"))).isFalse();

        CliRun compare = CliRun.line(
                "perplexity -m {} --kl-divergence-base {} --kl-divergence -t 1", CliRun.stories(), base.toString());
        assertThat(compare.code()).as(compare.err()).isZero();
        assertThat(compare.out()).contains("====== KL divergence statistics ======");
        // The same model against its own quantized log-probs: only the 16-bit storage separates them.
        Matcher kld = Pattern.compile("Mean    KLD: +(-?[0-9.]+)").matcher(compare.out());
        assertThat(kld.find()).isTrue();
        assertThat(Math.abs(Double.parseDouble(kld.group(1)))).isLessThan(1e-4);
        assertThat(compare.out()).contains("Same top p: 100.000");
        Matcher ratio =
                Pattern.compile("Mean PPL\\(Q\\)/PPL\\(base\\) +: +([0-9.]+)").matcher(compare.out());
        assertThat(ratio.find()).isTrue();
        assertThat(Double.parseDouble(ratio.group(1))).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-3));
    }

    @Test
    void badInputEndsInOneLine() throws Exception {
        Path t = text(300);
        CliRun tooShort = CliRun.of("perplexity", "-m", CliRun.stories(), "-f", t.toString(), "-c", "512");
        assertThat(tooShort.code()).isNotZero();
        assertThat(tooShort.errLines()).hasSize(1);
        assertThat(tooShort.err()).contains("needs at least 1024");

        Path latin1 = dir.resolve("latin1.txt");
        Files.write(latin1, "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1));
        CliRun notUtf8 = CliRun.of("perplexity", "-m", CliRun.stories(), "-f", latin1.toString());
        assertThat(notUtf8.code()).isNotZero();
        assertThat(notUtf8.err()).contains("is not UTF-8 text");

        CliRun noBase = CliRun.of("perplexity", "-m", CliRun.stories(), "--kl-divergence");
        assertThat(noBase.code()).isNotZero();
        assertThat(noBase.err()).contains("--kl-divergence needs --kl-divergence-base");

        Path junk = dir.resolve("junk.kld");
        Files.writeString(junk, "not a logits file at all");
        CliRun bad = CliRun.of(
                "perplexity", "-m", CliRun.stories(), "--kl-divergence-base", junk.toString(), "--kl-divergence");
        assertThat(bad.code()).isNotZero();
        assertThat(bad.errLines()).hasSize(1);
        assertThat(bad.err()).contains("not a llama.cpp logits file");
    }
}

package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 17's command-line findings: each ends in one line and the right exit code. */
class ReliabilityTest {
    @TempDir
    Path tmp;

    /** A stdout that accepts {@code limit} characters, then fails every write, counting the attempts. */
    private static final class ClosingWriter extends Writer {
        final StringBuilder written = new StringBuilder();
        final int limit;
        final Throwable failure;
        int attemptsAfterFailure;

        ClosingWriter(int limit, Throwable failure) {
            this.limit = limit;
            this.failure = failure;
        }

        @Override
        public void write(char[] buf, int off, int len) throws IOException {
            if (written.length() + len > limit) {
                attemptsAfterFailure++;
                switch (failure) {
                    case IOException e -> throw e;
                    case Error e -> throw e;
                    default -> throw new AssertionError(failure);
                }
            }
            written.append(buf, off, len);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }

    private static CliRun runWith(Writer stdout, String... args) {
        StringWriter err = new StringWriter();
        int code = JacapCli.execute(new PrintWriter(stdout), new PrintWriter(err), args);
        return new CliRun(code, "", err.toString());
    }

    @Test
    void anErrorThrownDuringACommandIsOneLineNotATrace() {
        // picocli's handler only sees Exceptions: an OutOfMemoryError used to escape as a stack trace.
        ClosingWriter out = new ClosingWriter(0, new OutOfMemoryError("Java heap space"));
        CliRun r = runWith(out, "run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "3", "-t", "1");
        assertThat(r.code()).isEqualTo(ErrorHandler.USER_ERROR);
        assertThat(r.errLines())
                .containsExactly("jacap: out of memory: raise -Xmx (JAVA_OPTS) or use a smaller context");
    }

    @Test
    void aBrokenStdoutEndsTheRunAt141WithNothingMoreGeneratedOrPrinted() {
        ClosingWriter out = new ClosingWriter(40, new IOException("Broken pipe"));
        CliRun r = runWith(out, "run", "-m", CliRun.stories(), "-p", "Once upon a time", "-n", "2000", "-t", "1");
        assertThat(r.code()).as(r.err()).isEqualTo(ErrorHandler.BROKEN_PIPE);
        assertThat(out.attemptsAfterFailure).isEqualTo(1); // the first failed write ends it
        assertThat(r.err()).isEmpty(); // no timings, no message: as a process killed by SIGPIPE
    }

    @Test
    void controlCharactersFromAFileAreEscapedInErrorsAndInspect() throws IOException {
        Path evil = tmp.resolve("evil.gguf");
        try (GgufFile f = GgufFile.open(Path.of(CliRun.stories()))) {
            GgufWriter.copyOf(f)
                    .putString("general.architecture", "\u001b[2J\u001b[31mpwn\u0007")
                    .write(evil);
        }
        CliRun run = CliRun.of("run", "-m", evil.toString(), "-p", "x");
        assertThat(run.code()).isEqualTo(1);
        assertThat(run.errLines())
                .containsExactly("jacap: unsupported architecture '\\x1b[2J\\x1b[31mpwn\\x07' (supported: llama, qwen2,"
                        + " qwen3, gemma3, phi3)");
        CliRun inspect = CliRun.of("inspect", evil.toString());
        assertThat(inspect.code()).as(inspect.err()).isZero();
        assertThat(inspect.out())
                .contains("\\x1b[2J\\x1b[31mpwn\\x07")
                .doesNotContain("\u001b")
                .doesNotContain("\u0007");
    }

    @Test
    void aPromptFileThatIsNotUtf8IsNamedWithItsBadByte() throws IOException {
        Path bad = Files.write(tmp.resolve("latin1.txt"), new byte[] {'c', 'a', 'f', (byte) 0xe9, '\n'});
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "-f", bad.toString(), "-n", "1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines())
                .containsExactly("jacap: prompt file " + bad + " is not UTF-8 text (bad byte 0xe9 at offset 3)");
    }

    @Test
    void anEndlessPromptFileIsRefusedWithoutFillingTheHeap() {
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "-f", "/dev/zero", "-n", "1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines()).containsExactly("jacap: prompt file /dev/zero is larger than 64 MiB");
    }

    @Test
    void moreThreadsThanProcessorsIsWarnedAbout() {
        int cores = Runtime.getRuntime().availableProcessors();
        CliRun r = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once", "-n", "1", "-t", String.valueOf(cores + 1));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.errLines())
                .contains("jacap: warning: -t " + (cores + 1) + " is more than the " + cores
                        + " processors here; the threads will wait on each other (try -t " + cores + ")");
        CliRun ok = CliRun.of("run", "-m", CliRun.stories(), "-p", "Once", "-n", "1", "-t", String.valueOf(cores));
        assertThat(ok.err()).doesNotContain("warning");
    }

    @Test
    void anUnwritableEvalOutputFailsBeforeTheRunAndNamesTheFile() {
        Path csv = tmp.resolve("missing-folder/table.csv");
        CliRun r = CliRun.of("eval", "-m", CliRun.stories(), "-N", "2", "--csv", csv.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.errLines())
                .containsExactly("jacap: cannot write --csv file " + csv + ": its folder " + csv.getParent()
                        + " does not exist");
        Path chart = tmp.resolve("a-folder");
        chart.toFile().mkdir();
        CliRun c = CliRun.of("eval", "-m", CliRun.stories(), "-N", "2", "--chart", chart.toString());
        assertThat(c.errLines()).containsExactly("jacap: cannot write --chart file " + chart + ": it is a folder");
    }

    @Test
    void atomicWritesNameTheTargetNotTheTemporaryFile() {
        Path target = tmp.resolve("gone/out.svg");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> AtomicFiles.writeString(target, "x"))
                .isInstanceOf(IOException.class)
                .hasMessage("cannot write " + target + ": its folder does not exist");
    }
}

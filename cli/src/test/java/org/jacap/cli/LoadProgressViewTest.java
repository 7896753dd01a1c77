package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class LoadProgressViewTest {
    private static final long BIG = 3L << 30;

    @Test
    void aPipeGetsAStartAndAnEndLine() {
        StringWriter sw = new StringWriter();
        LoadProgressView view = new LoadProgressView(new PrintWriter(sw), false, "big.gguf", BIG);
        for (long done = 0; done <= BIG; done += BIG / 100) {
            view.onProgress(done, BIG, "blk.0.attn_q.weight");
        }
        view.finished();
        assertThat(sw.toString().lines()).hasSize(2);
        assertThat(sw.toString())
                .startsWith("loading big.gguf (3.00 GiB) ...")
                .contains("loaded big.gguf (3.00 GiB) in ");
        assertThat(sw.toString()).doesNotContain("\r");
    }

    @Test
    void aTerminalGetsOneBarRedrawnInPlace() {
        StringWriter sw = new StringWriter();
        LoadProgressView view = new LoadProgressView(new PrintWriter(sw), true, "big.gguf", BIG);
        for (long done = 0; done <= BIG; done += BIG / 1000) {
            view.onProgress(done, BIG, "x");
        }
        view.finished();
        String s = sw.toString();
        assertThat(s.chars().filter(c -> c == '\n').count()).isEqualTo(1); // redraws share one line (\r)
        assertThat(s).contains("\rloading big.gguf [" + "#".repeat(15) + ".".repeat(15) + "]  50%");
        assertThat(s.chars().filter(c -> c == '\r').count()).isBetween(150L, 260L); // redrawn every half percent
        assertThat(s).endsWith("s\n").contains("loaded big.gguf");
    }

    @Test
    void smallFilesShowNothing() {
        StringWriter sw = new StringWriter();
        LoadProgressView view = new LoadProgressView(new PrintWriter(sw), true, "small.gguf", 1 << 20);
        view.onProgress(1, 2, "x");
        view.finished();
        assertThat(sw.toString()).isEmpty();
    }
}

package org.jacap.bench.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Reading llama-bench's CSV (the header and row shape of llama.cpp 0.3.36's {@code -o csv}). */
class LlamaBenchTest {

    @Test
    void namesTestsAsLlamaBenchDoes() {
        assertThat(BenchCase.prompt(512).name()).isEqualTo("pp512");
        assertThat(BenchCase.generation(128).atDepth(4096).name()).isEqualTo("tg128 @ d4096");
        assertThat(new BenchCase(16, 4, 32).name()).isEqualTo("pp16+tg4 @ d32");
        assertThat(new BenchCase(16, 4, 32).contextLength()).isEqualTo(52);
        assertThatThrownBy(() -> new BenchCase(0, 4, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the depth must be >= 0, got -1");
    }

    @Test
    void readsAvgAndStddevFromQuotedFields() throws IOException {
        String csv = "build_commit,cpu_info,model_filename,n_prompt,n_gen,avg_ns,stddev_ns,avg_ts,stddev_ts\n"
                + "\"0c1e570\",\"AMD EPYC, 2 cores\",\"/m/a \"\"b\"\".gguf\",\"16\",\"0\",\"656545\",\"138027\","
                + "\"24920.717917\",\"5239.150408\"\n";
        assertThat(LlamaBench.parse(csv)).isEqualTo(new LlamaBench.Result(24920.717917, 5239.150408));
        assertThat(LlamaBench.fields("\"a,b\",\"c\"\"d\",e")).containsExactly("a,b", "c\"d", "e");
    }

    @Test
    void refusesOutputWithoutAResultInOneLine() {
        assertThatThrownBy(() -> LlamaBench.parse("main: error: failed to load model\n"))
                .isInstanceOf(IOException.class)
                .hasMessage("llama-bench printed no CSV result (no avg_ts column and row)");
        assertThatThrownBy(() -> LlamaBench.parse("avg_ts,stddev_ts\n\"fast\",\"1\"\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not numbers: fast");
        assertThatThrownBy(() -> LlamaBench.parse("avg_ts,stddev_ts\n\"1\"\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("1 values for 2 columns");
    }

    @Test
    void passesTheSameSettingsJacapUses() {
        LlamaBench lb = new LlamaBench(Path.of("/bin/sh"));
        assertThat(lb.command(Path.of("m.gguf"), 2, BenchCase.generation(128), 3))
                .containsExactly("/bin/sh", "-m", "m.gguf", "-t", "2", "-p", "0", "-n", "128", "-r", "3", "-o", "csv");
        assertThat(lb.command(Path.of("m.gguf"), 1, BenchCase.generation(64).atDepth(4096), 2))
                .containsExactly(
                        "/bin/sh", "-m", "m.gguf", "-t", "1", "-p", "0", "-n", "64", "-r", "2", "-o", "csv", "-d",
                        "4096");
        assertThatThrownBy(() -> new LlamaBench(Path.of("/no/such/llama-bench")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not an executable file");
    }
}

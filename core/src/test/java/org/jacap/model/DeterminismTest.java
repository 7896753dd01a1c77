package org.jacap.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * Same model, input and threads give the same logits bit for bit, whatever the JIT has compiled:
 * a forked C1-only JVM (the Vector API's Java fallback, as in the interpreter) and a default (C2)
 * JVM, every round of it from cold to compiled, print the same ids and logit hash. Before {@link org.jacap.simd.LaneSums} this failed: the fallback and C2
 * added vector lanes in different orders.
 */
class DeterminismTest {

    private static List<String> probe(List<String> jvmFlags, int rounds, List<Path> models)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("--add-modules", "jdk.incubator.vector", "-Xmx512m"));
        cmd.addAll(jvmFlags);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), DeterminismProbe.class.getName()));
        cmd.add(String.valueOf(rounds));
        cmd.add("2");
        models.forEach(m -> cmd.add(m.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
        }
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().filter(l -> l.contains(" round ")).toList();
    }

    /** "model round r: rest" → "model: rest", so rounds and JVMs compare line by line. */
    private static List<String> withoutRound(List<String> lines) {
        return lines.stream().map(l -> l.replaceAll(" round \\d+:", ":")).toList();
    }

    @Test
    void javaFallbackAndC2GiveTheSameBits() throws Exception {
        List<Path> models = List.of(
                Fixtures.anyModel("stories260K.gguf"),
                Fixtures.anyModel("llama-Q4_0.gguf"),
                Fixtures.anyModel("llama-Q4_K_M.gguf"),
                Fixtures.anyModel("qwen3-Q8_0.gguf"),
                Fixtures.anyModel("gemma3-Q5_K_M.gguf"),
                Fixtures.anyModel("phi3-Q6_K.gguf"));
        List<String> interpreted = withoutRound(probe(List.of("-Xint"), 1, models));
        List<String> c1 = withoutRound(probe(List.of("-XX:TieredStopAtLevel=1"), 1, models));
        // 30 rounds: the first run cold, the last ones with the kernels compiled by C2.
        List<String> c2 = withoutRound(probe(List.of(), 30, models));
        assertThat(interpreted).hasSize(models.size());
        assertThat(c1).isEqualTo(interpreted);
        for (int m = 0; m < models.size(); m++) {
            for (int r = 0; r < 30; r++) {
                assertThat(c2.get(m * 30 + r))
                        .as("round %d of model %d under C2", r, m)
                        .isEqualTo(interpreted.get(m));
            }
        }
    }
}

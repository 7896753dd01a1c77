package org.jacap.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jacap.JacapException;
import org.junit.jupiter.api.Test;

class VectorApiCheckTest {

    @Test
    void aMissingVectorModuleIsOneMessageNamingTheFlag() {
        assertThatThrownBy(() -> VectorApiCheck.require(Optional.empty()))
                .isInstanceOf(JacapException.class)
                .hasMessage("the Java Vector API is not enabled: start the JVM with --add-modules jdk.incubator.vector"
                        + " (and a JDK 25 or newer)");
        VectorApiCheck.require(); // the tests' JVM has it
    }

    /** A JVM started without the flag gets the JacapException from Engine.load, not a NoClassDefFoundError. */
    @Test
    void engineLoadInAJvmWithoutTheFlagSaysSo() throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(List.of(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        LoadWithoutVectorApi.class.getName(),
                        Path.of("no-such.gguf").toString()))
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out.strip())
                .isEqualTo("JacapException: the Java Vector API is not enabled: start the JVM with --add-modules"
                        + " jdk.incubator.vector (and a JDK 25 or newer)");
    }

    /** Run in a child JVM: what Engine.load throws there. */
    static final class LoadWithoutVectorApi {
        public static void main(String[] args) throws IOException {
            try {
                Engine.load(Path.of(args[0]), EngineOptions.defaults()).close();
                System.out.println("loaded");
            } catch (RuntimeException | Error e) {
                System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }
}

package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./jacap} launcher as a parent process sees it (issue 17): SIGTERM reaches the JVM
 * and ends it, and a reader that goes away ends the run at exit 141. The launcher runs a
 * manifest-only jar over this test's class path ({@code JACAP_JAR}), so no packaged jar is needed.
 */
class LauncherTest {
    private static final Path LAUNCHER = Path.of("..", "jacap").toAbsolutePath().normalize();

    @TempDir
    static Path tmp;

    private static Path jar;

    @BeforeAll
    static void manifestJar() throws IOException {
        assumeTrue(Files.isExecutable(LAUNCHER), "launcher not found at " + LAUNCHER);
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "bash is needed to run the launcher");
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "org.jacap.cli.JacapCli");
        StringBuilder cp = new StringBuilder();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry).toAbsolutePath();
            if (Files.exists(p)) {
                cp.append(p.toUri()).append(' ');
            }
        }
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, cp.toString().strip());
        jar = tmp.resolve("jacap-test.jar");
        try (OutputStream out = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(out, m)) {
            j.flush();
        }
    }

    /** The launcher generating "without end" (-n 10^6 under a streaming KV budget), stderr to a file. */
    private static Process endlessRun(Path stdout, Path stderr) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(CliRun.args(
                "{} run -m {} -p {} -n 1000000 --kv-policy streaming --kv-budget 64 -t 1",
                LAUNCHER.toString(),
                CliRun.stories(),
                "Once upon a time"));
        pb.environment().put("JACAP_JAR", jar.toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.redirectError(stderr.toFile());
        if (stdout != null) {
            pb.redirectOutput(stdout.toFile());
        }
        return pb.start();
    }

    private static byte[] readAtLeast(Process p, Path stderr, int n) throws IOException {
        byte[] b = p.getInputStream().readNBytes(n);
        assertThat(b)
                .as(() -> "the run printed its first bytes; stderr: " + text(stderr))
                .hasSize(n);
        return b;
    }

    private static String text(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void sigtermToTheLauncherEndsTheJvmItStarted() throws Exception {
        // stdout to a file, not a pipe: a JVM orphaned by its launcher then never stops on its own
        // (a pipe would be closed by this JVM once the launcher exits, ending it with EPIPE).
        Path out = tmp.resolve("term.out");
        Path err = tmp.resolve("term.err");
        Process p = endlessRun(out, err);
        List<ProcessHandle> family = List.of();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (Files.size(out) < 40) { // generating
                assertThat(p.isAlive())
                        .as(() -> "the run is alive; stderr: " + text(err))
                        .isTrue();
                assertThat(System.nanoTime())
                        .as("the run printed 40 bytes within a minute")
                        .isLessThan(deadline);
                Thread.sleep(50);
            }
            family = p.descendants().filter(ProcessHandle::isAlive).toList();
            p.destroy(); // SIGTERM, what Python's terminate() sends too
            assertThat(p.waitFor(30, TimeUnit.SECONDS))
                    .as("the launcher ended after SIGTERM")
                    .isTrue();
            for (ProcessHandle h : family) {
                // A JVM left running under PID 1 times out here.
                assertThat(h.onExit()
                                .completeOnTimeout(null, 10, TimeUnit.SECONDS)
                                .get())
                        .as("process %d %s ended", h.pid(), h.info().command().orElse(""))
                        .isNotNull();
            }
            assertThat(p.exitValue()).isEqualTo(143); // 128 + SIGTERM: the JVM itself took the signal
        } finally {
            family.forEach(ProcessHandle::destroyForcibly); // even an orphan of a failed run
            p.destroyForcibly();
        }
    }

    /**
     * A copy of the launcher in a fake checkout whose jar is older than a source: it rebuilds
     * (here a stand-in {@code mvnw} that records its arguments) before it runs the jar, and runs
     * it without rebuilding once the jar is newer again; {@code JACAP_JAR} is never rebuilt.
     */
    @Test
    void aJarOlderThanTheSourcesIsRebuiltFirst() throws Exception {
        Path checkout = Files.createDirectories(tmp.resolve("checkout"));
        Path launcher = Files.copy(LAUNCHER, checkout.resolve("jacap"));
        Path log = checkout.resolve("mvnw.log");
        Path mvnw = checkout.resolve("mvnw");
        Files.writeString(mvnw, "#!/bin/sh\necho \"$@\" >> '" + log + "'\ntouch cli/target/jacap.jar\n");
        assertThat(mvnw.toFile().setExecutable(true)).isTrue();
        Path built = Files.createDirectories(checkout.resolve("cli/target")).resolve("jacap.jar");
        Files.copy(jar, built);
        Path source =
                Files.createDirectories(checkout.resolve("core/src/main/java")).resolve("Changed.java");
        Files.writeString(source, "class Changed {}");
        Files.setLastModifiedTime(built, FileTime.fromMillis(System.currentTimeMillis() - 60_000));

        Process first = version(launcher, null);
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(first.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                .contains("jacap: sources changed since the CLI jar was built: rebuilding it");
        assertThat(new String(first.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .startsWith("jacap ");
        assertThat(first.exitValue()).isZero();
        assertThat(Files.readAllLines(log)).containsExactly("-q -B -DskipTests package");

        Process second = version(launcher, null); // the stand-in touched the jar: now newer than the source
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(second.exitValue()).isZero();
        Files.setLastModifiedTime(built, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Process named = version(launcher, built); // JACAP_JAR: used as it is
        assertThat(named.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(named.exitValue()).isZero();
        assertThat(Files.readAllLines(log)).hasSize(1);
    }

    private static Process version(Path launcher, Path jacapJar) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "--version");
        pb.environment().remove("JACAP_JAR");
        if (jacapJar != null) {
            pb.environment().put("JACAP_JAR", jacapJar.toString());
        }
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return pb.start();
    }

    @Test
    void aReaderThatGoesAwayEndsTheRunWithExit141() throws Exception {
        Path err = tmp.resolve("pipe.err");
        Process p = endlessRun(null, err);
        try {
            byte[] first = readAtLeast(p, err, 20); // as `| head -c 20`
            assertThat(new String(first, StandardCharsets.UTF_8)).startsWith("Once upon a time");
            p.getInputStream().close();
            assertThat(p.waitFor(60, TimeUnit.SECONDS))
                    .as("the run stopped once nobody read its output")
                    .isTrue();
            assertThat(p.exitValue()).isEqualTo(ErrorHandler.BROKEN_PIPE);
            // Only the up-front context warning: no trace, no timings, nothing after the reader left.
            assertThat(Files.readAllLines(err)).singleElement().asString().startsWith("warning: positions may reach");
        } finally {
            p.destroyForcibly();
        }
    }
}

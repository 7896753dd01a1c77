package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jacap chat} in a real pseudo-terminal (a detached tmux session): line editing, history and
 * Ctrl-C, which only exist on a terminal. Skipped where tmux is not installed.
 */
class ChatTerminalTest {
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    private final String session = "jacap-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();

    @AfterEach
    void killSession() throws IOException, InterruptedException {
        if (socket() != null) {
            tmux("kill-server");
        }
    }

    /** A server of our own (-S socket): other tmux users on the machine neither see nor end it. */
    private Path socket() {
        return dir == null ? null : dir.resolve("tmux.sock");
    }

    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-S", socket().toString()));
        cmd.addAll(List.of(args));
        return run(cmd.toArray(String[]::new));
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    private static boolean tmuxAvailable() {
        try {
            return new ProcessBuilder("tmux", "-V").start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private String screen() throws IOException, InterruptedException {
        return tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", session);
    }

    private String waitFor(Predicate<String> condition, String what) throws IOException, InterruptedException {
        long end = System.currentTimeMillis() + WAIT_MS;
        String s = screen();
        while (!condition.test(s)) {
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("timed out waiting for " + what + "; screen:\n" + s);
            }
            Thread.sleep(100);
            s = screen();
        }
        return s;
    }

    private void keys(String... keys) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("send-keys", "-t", session));
        cmd.addAll(List.of(keys));
        tmux(cmd.toArray(String[]::new));
    }

    private void start(String... chatArgs) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path script = dir.resolve("chat.sh");
        StringBuilder sh = new StringBuilder(
                // Ctrl-C reaches the whole foreground group: the shell catches it (a handler, not an
                // ignore, so java still gets it) to stay alive and print the exit code
                "#!/bin/sh\ntrap 'true' INT\nXDG_CACHE_HOME='" + dir + "' '" + java + "'"
                        + " --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp '"
                        + System.getProperty("java.class.path") + "' org.jacap.cli.JacapCli chat");
        for (String a : chatArgs) {
            sh.append(" '").append(a).append("'");
        }
        sh.append(" 2>/dev/null\necho \"EXIT=$?\"\nsleep 600\n");
        Files.writeString(script, sh);
        tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "50", "sh " + script);
    }

    @Test
    void ctrlCStopsTheReplyAndTheConversationGoesOn() throws IOException, InterruptedException {
        assumeTrue(tmuxAvailable(), "tmux not installed: the pseudo-terminal chat test is skipped");
        // with a KV budget the positions never run out, so the reply is still running when Ctrl-C comes
        start("-m", CliRun.stories(), "--temp", "0", "-n", "100000", "--kv-policy", "streaming", "--kv-budget", "64");
        waitFor(s -> s.contains("> "), "the prompt");
        keys("Once upon a time", "Enter");
        waitFor(s -> s.lines().filter(l -> !l.isBlank()).count() > 6, "a few lines of reply");
        keys("C-c");
        String s = waitFor(x -> x.contains("| cancelled]"), "the timing line of the stopped reply");
        assertThat(s)
                .contains("(stopped; the reply so far stays in the conversation)")
                .doesNotContain("EXIT=");

        // history: Up brings back the first message, and the line editor does not echo escape codes
        keys("Up");
        waitFor(
                x -> x.lines().anyMatch(l -> l.equals("> Once upon a time"))
                        && x.lastIndexOf("> Once") > x.indexOf("(stopped;"),
                "the recalled line");
        keys("C-u", "/exit", "Enter");
        s = waitFor(x -> x.contains("EXIT="), "the exit");
        assertThat(s).contains("EXIT=0").doesNotContain("^[[A");
        assertThat(dir.resolve("jacap/chat_history")).content().contains("Once upon a time");
    }
}

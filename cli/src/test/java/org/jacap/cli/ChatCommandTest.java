package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChatCommandTest {

    private static CliRun withStdin(String input, String... args) {
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
        try {
            return CliRun.of(args);
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void aPipedConversationRunsAndEndsAtEndOfInput() {
        CliRun r = withStdin(
                "Hello\n\n/reset\nTell me a story\n",
                CliRun.args("chat -m {} --temp 0 -n 16 --system {}", CliRun.stories(), "You tell stories."));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("chat template: ").contains("(conversation reset)");
        assertThat(r.out().lines().filter(l -> !l.isEmpty()).count()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void exitEndsTheConversation() {
        CliRun r = withStdin("/exit\nthis is never read\n", "chat", "-m", CliRun.stories(), "--temp", "0");
        assertThat(r.code()).isZero();
        assertThat(r.out()).isEmpty();
    }

    @Test
    void anOverlongConversationKeepsTheReplAlive() {
        CliRun r = withStdin(
                "Hello there\nHello again\n", "chat", "-m", CliRun.stories(), "--temp", "0", "-n", "8", "--ctx", "24");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("jacap: context overflow").contains("/reset");
    }

    @Test
    void chatTemplateTakesANameOrAFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        CliRun named = withStdin(
                "Hi\n", "chat", "-m", CliRun.stories(), "--temp", "0", "-n", "4", "--chat-template", "chatml");
        assertThat(named.code()).as(named.err()).isZero();
        assertThat(named.err()).contains("chat template: chatml").doesNotContain("warning:");

        java.nio.file.Path file = java.nio.file.Files.writeString(
                dir.resolve("t.jinja"),
                "{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n{{ m['content'] }}<|eot_id|>{% endfor %}");
        CliRun fromFile = withStdin(
                "Hi\n", "chat", "-m", CliRun.stories(), "--temp", "0", "-n", "4", "--chat-template", file.toString());
        assertThat(fromFile.code()).as(fromFile.err()).isZero();
        assertThat(fromFile.err()).contains("chat template: llama3");

        CliRun bad = CliRun.of("chat", "-m", CliRun.stories(), "--chat-template", "nosuch");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.errLines())
                .singleElement()
                .asString()
                .startsWith("jacap: --chat-template 'nosuch' is neither a file nor a template name (chatml, phi4,");
    }

    @Test
    void badSamplingFlagsAreOneLine() {
        CliRun r = CliRun.of("chat", "-m", "x.gguf", "--top-p", "7");
        r.assertUsageError("chat", r.err()).startsWith("jacap: --top-p must be in (0, 1]");
    }
}

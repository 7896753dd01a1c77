package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import org.jacap.JacapException;
import org.jacap.engine.CancellationToken;
import org.jacap.engine.FinishReason;
import org.jacap.engine.Generation;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.GenerationResult;
import org.jacap.engine.Session;
import org.jacap.engine.TokenEvent;

/**
 * The conversation of {@code jacap chat}: reads lines, runs the commands, streams each reply to
 * {@code out} and a timing line to {@code err}. {@link #interrupt()} (Ctrl-C) stops the reply
 * being generated; what was said so far stays in the conversation.
 */
final class ChatLoop {
    static final String HELP = "/regen (new reply), /edit TEXT (replace your last message), /save FILE, /load FILE,"
            + " /reset (start over), /help, /exit (or Ctrl-D)";

    private final Session session;
    private final GenerationOptions options;
    private final ChatInput input;
    private final PrintWriter out;
    private final PrintWriter err;
    private final String prompt;
    private volatile CancellationToken running;

    ChatLoop(
            Session session,
            GenerationOptions options,
            ChatInput input,
            PrintWriter out,
            PrintWriter err,
            String prompt) {
        this.session = session;
        this.options = options;
        this.input = input;
        this.out = out;
        this.err = err;
        this.prompt = prompt;
    }

    /** Stops the reply being generated, if any (from any thread). */
    void interrupt() {
        CancellationToken t = running;
        if (t != null) {
            t.cancel();
        }
    }

    /** Runs until /exit or the end of input. */
    void run() {
        input.onInterrupt(this::interrupt);
        while (true) {
            String line = input.readLine(prompt);
            if (line == null) {
                return; // end of input: a piped conversation ends without hanging
            }
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.equals("/exit") || line.equals("/quit")) {
                return;
            }
            command(line);
        }
    }

    private void command(String line) {
        String word = line.split("\\s+", 2)[0];
        String arg = line.substring(word.length()).strip();
        switch (word) {
            case "/reset" -> {
                session.reset();
                note("(conversation reset)");
            }
            case "/help" -> note(HELP);
            case "/regen" -> reply(() -> session.startRegenerate(withToken()));
            case "/edit" -> {
                if (arg.isEmpty()) {
                    note("jacap: /edit needs the new text of your last message");
                } else {
                    reply(() -> session.startEditLastTurn(arg, withToken()));
                }
            }
            case "/save" ->
                file(arg, "save", f -> {
                    session.save(f);
                    note("(saved " + session.history().size() + " messages, " + session.tokens().length + " tokens to "
                            + f + ")");
                });
            case "/load" ->
                file(arg, "load", f -> {
                    session.restore(f);
                    note("(loaded " + session.history().size() + " messages, " + session.tokens().length
                            + " tokens from " + f + ")");
                });
            default -> {
                if (line.startsWith("/") && !line.startsWith("//") && word.matches("/[a-z]+")) {
                    note("jacap: unknown command " + word + "; " + HELP);
                } else {
                    String text = line.startsWith("//") ? line.substring(1) : line; // "//x" sends "/x"
                    reply(() -> session.startChat(text, withToken()));
                }
            }
        }
    }

    @FunctionalInterface
    private interface FileAction {
        void apply(Path file) throws IOException;
    }

    private void file(String arg, String verb, FileAction action) {
        if (arg.isEmpty()) {
            note("jacap: /" + verb + " needs a file name");
            return;
        }
        try {
            action.apply(Path.of(arg));
        } catch (IOException e) {
            note("jacap: cannot " + verb + " " + arg + ": " + describe(e));
        } catch (JacapException | IllegalStateException e) {
            note("jacap: " + ValueText.escaped(e.getMessage()));
        }
    }

    @FunctionalInterface
    private interface Start {
        Generation start();
    }

    private GenerationOptions withToken() {
        CancellationToken token = new CancellationToken();
        running = token;
        return options.withCancellation(token);
    }

    private void reply(Start start) {
        boolean started = false;
        GenerationResult result;
        try (Generation g = start.start()) {
            while (g.hasNext()) {
                TokenEvent e = g.next();
                String text = e.text();
                if (!started) { // the reply's leading space belongs to the template layout, not to the answer
                    text = text.stripLeading();
                    started = !text.isEmpty();
                }
                out.print(text);
                out.flush();
            }
            result = g.result();
        } catch (JacapException e) {
            note("jacap: " + ValueText.escaped(e.getMessage()) + contextAdvice(e.getMessage()));
            return;
        } catch (IllegalStateException e) {
            note("jacap: " + ValueText.escaped(e.getMessage()));
            return;
        } finally {
            running = null;
        }
        out.println();
        out.flush();
        if (result.finishReason() == FinishReason.CANCELLED) {
            note("(stopped; the reply so far stays in the conversation)");
        } else if (result.finishReason() == FinishReason.CONTEXT_FULL) {
            note("(the reply filled the context of " + session.contextLength() + " tokens; type /reset to start over,"
                    + " or run with a larger --ctx, or --kv-budget N to evict old entries)");
        }
        note(timing(result));
    }

    private static String describe(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage();
    }

    private static String contextAdvice(String message) {
        return message.startsWith("context overflow")
                ? " (type /reset to start over, or run with a larger --ctx, or --kv-budget N to evict old entries)"
                : "";
    }

    /** One line per reply: tokens, speeds and why it ended. */
    static String timing(GenerationResult r) {
        var t = r.timings();
        return String.format(
                Locale.ROOT,
                "[%d tokens, %.1f tokens/s | prompt %d tokens, %.1f tokens/s | %s]",
                r.generatedTokens(),
                t.evalTokensPerSecond(),
                t.promptTokens(),
                t.promptTokensPerSecond(),
                r.finishReason().name().toLowerCase(Locale.ROOT).replace('_', ' '));
    }

    private void note(String s) {
        err.println(s);
        err.flush();
    }
}

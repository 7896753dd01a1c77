package org.jacap.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jacap.JacapException;
import org.jacap.engine.Engine;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.Session;
import org.jacap.tokenizer.ChatTemplate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jacap chat}: a conversation on stdin/stdout using the model's chat template. One line is
 * one user message; {@code /reset} starts over, {@code /exit} or end of input quits.
 */
@Command(
        name = "chat",
        sortOptions = false,
        description = {
            "Chat with the model using its chat template: one line per message.",
            "Commands: /reset (start over), /exit (or end of input) to quit."
        })
final class ChatCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--system", paramLabel = "S", description = "System message that opens the conversation.")
    String system;

    @Option(
            names = {"-n", "--n-predict"},
            paramLabel = "N",
            description = "Tokens per reply at most (default: ${DEFAULT-VALUE}).")
    int maxTokens = 512;

    @Mixin
    SamplingOptions sampling;

    @Mixin
    KvOptions kv;

    @Mixin
    CacheTypeOptions cacheTypes;

    @Option(names = "--stop", paramLabel = "STR", description = "Also end a reply before this text (repeatable).")
    List<String> stops = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        modelOptions.validate(spec);
        GenerationOptions options;
        SamplingOptions.check(spec, maxTokens >= 1, "-n must be >= 1 (got " + maxTokens + ")");
        SamplingOptions.check(spec, stops.stream().noneMatch(String::isEmpty), "--stop needs a non-empty string");
        var eviction = kv.eviction(spec);
        var types = cacheTypes.types(spec);
        options = GenerationOptions.defaults()
                .withMaxTokens(maxTokens)
                .withSampler(sampling.toConfig(spec))
                .withStopStrings(stops);

        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        boolean interactive = Terminal.interactive();
        try (Engine engine = modelOptions.load(spec);
                Session session = engine.newSession(modelOptions
                        .sessionOptions()
                        .withSystemPrompt(system)
                        .withEviction(eviction)
                        .withCacheTypes(types))) {
            ChatTemplate template = engine.chatTemplate();
            err.println("chat template: " + template.family());
            template.warning().ifPresent(w -> err.println("warning: " + w));
            err.println("type a message; /reset to start over, /exit to quit");
            err.flush();
            while (true) {
                if (interactive) {
                    out.print("> ");
                    out.flush();
                }
                String line = in.readLine();
                if (line == null || line.strip().equals("/exit")) {
                    break; // end of input: a piped conversation ends without hanging
                }
                line = line.strip();
                if (line.isEmpty()) {
                    continue;
                }
                if (line.equals("/reset")) {
                    session.reset();
                    err.println("(conversation reset)");
                    err.flush();
                    continue;
                }
                reply(session, line, options, out, err);
            }
        }
        return 0;
    }

    private static void reply(
            Session session, String line, GenerationOptions options, PrintWriter out, PrintWriter err) {
        boolean[] started = {false};
        try {
            session.chat(line, options, (id, text) -> {
                if (!started[0]) { // the reply's leading space belongs to the template layout, not to the answer
                    text = text.stripLeading();
                    started[0] = !text.isEmpty();
                }
                out.print(text);
                out.flush();
                return true;
            });
            out.println();
            out.flush();
        } catch (JacapException e) {
            // the conversation outgrew the context: say so and keep the REPL alive
            err.println("jacap: " + e.getMessage() + " (type /reset to start over)");
            err.flush();
        }
    }
}

package org.jacap.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jacap.engine.Engine;
import org.jacap.engine.GenerationOptions;
import org.jacap.engine.Session;
import org.jacap.tokenizer.ChatTemplate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code jacap chat}: a conversation using the model's chat template. On a terminal the input is
 * a line editor with history and Ctrl-C stops a reply; piped input is read line by line.
 */
@Command(
        name = "chat",
        sortOptions = false,
        description = {
            "Chat with the model using its chat template: one line per message.",
            "Commands: " + ChatLoop.HELP + ".",
            "On a terminal: arrows and Ctrl-R edit and recall lines; Ctrl-C stops a reply and keeps the conversation."
        })
final class ChatCommand extends HelpedCommand {

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--system", paramLabel = "S", description = "System message that opens the conversation.")
    String system;

    @Option(
            names = "--chat-template",
            paramLabel = "NAME|FILE",
            description = "Render turns with this template instead of the model's: a family name (chatml, llama3,"
                    + " gemma, phi3, zephyr, mistral, llama2, plain …) or a file holding a Jinja chat template.")
    String chatTemplate;

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
        SamplingOptions.check(spec, maxTokens >= 1, "-n must be >= 1 (got " + maxTokens + ")");
        SamplingOptions.check(spec, stops.stream().noneMatch(String::isEmpty), "--stop needs a non-empty string");
        Path templateFile = templateFile(spec, chatTemplate);
        var eviction = kv.eviction(spec);
        var types = cacheTypes.types(spec);
        GenerationOptions options = GenerationOptions.defaults()
                .withMaxTokens(maxTokens)
                .withSampler(sampling.toConfig(spec))
                .withStopStrings(stops);

        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean interactive = Terminal.interactive();
        try (Engine engine = modelOptions.load(spec)) {
            ChatTemplate template = engine.chatTemplate();
            if (chatTemplate != null) {
                String source = templateFile != null
                        ? Files.readString(templateFile, StandardCharsets.UTF_8)
                        : chatTemplate.strip();
                template = ChatTemplate.fromTemplate(source, engine.tokenizer());
            }
            var sessionOptions = modelOptions
                    .sessionOptions()
                    .withSystemPrompt(system)
                    .withEviction(eviction)
                    .withCacheTypes(types)
                    .withChatTemplate(template);
            try (Session session = engine.newSession(sessionOptions);
                    ChatInput input = interactive
                            ? new LineEditorInput(CacheDirectory.defaultPath().resolve("chat_history"))
                            : new PlainInput(System.in)) {
                err.println("chat template: " + template.family());
                template.warning().ifPresent(w -> err.println("warning: " + w + " (choose one with --chat-template)"));
                err.println("type a message; " + ChatLoop.HELP);
                err.flush();
                // On a terminal the notes go with the text, so they show in order with the prompt; in a
                // pipe they stay on stderr, apart from the replies.
                new ChatLoop(session, options, input, out, interactive ? out : err, interactive ? "> " : "").run();
            }
        }
        return 0;
    }

    /** The file a --chat-template value names, null for a family name; a usage error for neither. */
    static Path templateFile(CommandSpec spec, String value) {
        if (value == null) {
            return null;
        }
        if (ChatTemplate.NAMES.contains(value.strip())) {
            return null;
        }
        Path p = Path.of(value);
        SamplingOptions.check(
                spec,
                Files.isRegularFile(p),
                "--chat-template '" + value + "' is neither a file nor a template name ("
                        + String.join(", ", ChatTemplate.NAMES) + ")");
        return p;
    }
}

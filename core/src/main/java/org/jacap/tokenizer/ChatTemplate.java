package org.jacap.tokenizer;

import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jacap.gguf.GgufMetadata;
import org.jacap.gguf.GgufValue;

/**
 * Turns a conversation into the prompt text a chat model was trained on. The family is recognised
 * from distinctive substrings of {@code tokenizer.chat_template} (as llama.cpp's
 * {@code llm_chat_detect_template} does) and rendered by hand-written rules that reproduce the
 * official templates, including a default system message the template builds in (Qwen, DBRX) and
 * Llama 3.1's dated system header. The BOS text is left out when the tokenizer adds BOS itself.
 * Unknown or missing templates fall back to a plain {@code User: …\nAssistant:} layout with a
 * {@link #warning()}. Encode a {@link #renderPrompt rendered prompt} with {@link ChatPrompt#encode}, which
 * parses special tokens in the template's text only. Immutable.
 */
public final class ChatTemplate {
    private static final String KEY = "tokenizer.chat_template";
    private static final Pattern SET_SYSTEM =
            Pattern.compile("set\\s+system_message\\s*=\\s*('(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\")");
    private static final Pattern LITERAL_SYSTEM_TURN =
            Pattern.compile("'<\\|im_start\\|>system(?:\\\\n|\\n)((?:[^'\\\\]|\\\\.)*?)<\\|im_end\\|>");
    private static final Pattern DATE_STRING = Pattern.compile("date_string\\s*=\\s*\"([^\"]+)\"");

    private final ChatFormat format;
    private final String prefix;
    private final String warning;

    private ChatTemplate(ChatFormat format, String prefix, String warning) {
        this.format = format;
        this.prefix = prefix;
        this.warning = warning;
    }

    /** The template of a model: {@code tokenizer.chat_template}, with the tokenizer's BOS/EOS texts. */
    public static ChatTemplate fromMetadata(GgufMetadata metadata, Tokenizer tokenizer) {
        String template = metadata.get(KEY).orElse(null) instanceof GgufValue.StringValue s ? s.value() : null;
        return fromTemplate(template, tokenizer);
    }

    /** A template given as Jinja source or as a family name ("chatml", "llama3", ...); null means none. */
    public static ChatTemplate fromTemplate(String template, Tokenizer tokenizer) {
        return fromTemplate(
                template,
                tokenText(tokenizer, tokenizer.bosId(), "<s>"),
                tokenText(tokenizer, tokenizer.eosId(), "</s>"),
                tokenizer.addBosByDefault(),
                Clock.systemDefaultZone());
    }

    /**
     * A template with explicit special texts. {@code tokenizerAddsBos} true leaves the leading BOS
     * text out of the rendering; {@code clock} dates templates that print today's date.
     */
    public static ChatTemplate fromTemplate(
            String template, String bosText, String eosText, boolean tokenizerAddsBos, Clock clock) {
        Objects.requireNonNull(bosText, "bosText");
        Objects.requireNonNull(eosText, "eosText");
        if (template == null || template.isBlank()) {
            return new ChatTemplate(
                    new ChatFormat.Plain(),
                    "",
                    "the model has no chat template (" + KEY + "); using a plain 'User: …/Assistant:' layout");
        }
        ChatFormat byName = byName(template.strip(), bosText, eosText, tokenizerAddsBos, clock);
        if (byName != null) {
            return new ChatTemplate(byName, "", null);
        }
        ChatFormat format = detect(template, bosText, eosText, tokenizerAddsBos, clock);
        if (format == null) {
            return new ChatTemplate(
                    new ChatFormat.Plain(),
                    "",
                    "unrecognised chat template; using a plain 'User: …/Assistant:' layout");
        }
        boolean leadingBos =
                template.contains("bos_token") && !tokenizerAddsBos && !(format instanceof ChatFormat.Llama2);
        return new ChatTemplate(format, leadingBos ? bosText : "", null);
    }

    private static ChatFormat detect(String t, String bos, String eos, boolean addsBos, Clock clock) {
        if (t.contains("<|im_start|>")) {
            String system = defaultSystem(t);
            return t.contains("<|im_sep|>")
                    ? new ChatFormat.ChatMl("<|im_sep|>", "<|im_end|>", system)
                    : new ChatFormat.ChatMl("\n", "<|im_end|>\n", system);
        }
        if (t.startsWith("mistral") || t.contains("[INST]")) {
            if (t.contains("[SYSTEM_PROMPT]")) {
                return new ChatFormat.Mistral("v7", eos);
            }
            if (t.contains("' [INST] ' + system_message") || t.contains("[AVAILABLE_TOOLS]")) {
                String variant = t.contains(" [INST]") ? "v1" : t.contains("\"[INST]\"") ? "v3-tekken" : "v3";
                return new ChatFormat.Mistral(variant, eos);
            }
            return t.contains("<<SYS>>")
                    ? new ChatFormat.Llama2(bos, eos, !addsBos)
                    : new ChatFormat.Mistral("legacy", eos);
        }
        if (t.contains("<|assistant|>") && t.contains("<|end|>")) {
            return new ChatFormat.Phi3();
        }
        if (t.contains("<|user|>") && (t.contains("<|endoftext|>") || t.contains("eos_token"))) {
            return new ChatFormat.Zephyr(t.contains("<|endoftext|>") ? "<|endoftext|>" : eos);
        }
        if (t.contains("<start_of_turn>")) {
            return new ChatFormat.Gemma();
        }
        if (t.contains("<|start_header_id|>") && t.contains("<|end_header_id|>")) {
            return new ChatFormat.Llama3(t.contains("Cutting Knowledge Date") ? date(t, clock) : null);
        }
        return null;
    }

    /** The family names {@link #fromTemplate(String, Tokenizer)} accepts instead of Jinja source. */
    public static final List<String> NAMES = List.of(
            "chatml",
            "phi4",
            "llama3",
            "llama2",
            "mistral",
            "mistral-v1",
            "mistral-v3",
            "mistral-v3-tekken",
            "mistral-v7",
            "mistral-v7-tekken",
            "gemma",
            "phi3",
            "zephyr",
            "plain");

    private static ChatFormat byName(String name, String bos, String eos, boolean addsBos, Clock clock) {
        return switch (name) {
            case "chatml" -> new ChatFormat.ChatMl("\n", "<|im_end|>\n", null);
            case "phi4" -> new ChatFormat.ChatMl("<|im_sep|>", "<|im_end|>", null);
            case "llama3" -> new ChatFormat.Llama3(null);
            case "llama2" -> new ChatFormat.Llama2(bos, eos, !addsBos);
            case "mistral" -> new ChatFormat.Mistral("legacy", eos);
            case "mistral-v1", "mistral-v3", "mistral-v3-tekken", "mistral-v7", "mistral-v7-tekken" ->
                new ChatFormat.Mistral(name.substring("mistral-".length()), eos);
            case "gemma" -> new ChatFormat.Gemma();
            case "phi3" -> new ChatFormat.Phi3();
            case "zephyr" -> new ChatFormat.Zephyr(eos);
            case "plain" -> new ChatFormat.Plain();
            default -> null;
        };
    }

    /** The system message a ChatML template inserts when the conversation has none, or null. */
    static String defaultSystem(String template) {
        Matcher set = SET_SYSTEM.matcher(template);
        if (set.find()) {
            String literal = set.group(1);
            return unescape(literal.substring(1, literal.length() - 1)).strip();
        }
        Matcher turn = LITERAL_SYSTEM_TURN.matcher(template);
        return turn.find() ? unescape(turn.group(1)) : null;
    }

    /** Jinja string-literal escapes. */
    private static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                out.append(
                        switch (n) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            default -> n;
                        });
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    // Llama 3.2 prints today's date (strftime_now); 3.1 a fixed one.
    private static String date(String template, Clock clock) {
        if (template.contains("strftime_now")) {
            return LocalDate.now(clock).format(DateTimeFormatter.ofPattern("dd MMM yyyy", Locale.ENGLISH));
        }
        Matcher m = DATE_STRING.matcher(template);
        return m.find() ? m.group(1) : "26 Jul 2024";
    }

    private static String tokenText(Tokenizer tokenizer, int id, String fallback) {
        return id >= 0 ? tokenizer.piece(id) : fallback;
    }

    /**
     * The prompt for {@code messages}; with {@code addAssistantPrefix} it ends with the opening of
     * the assistant's turn (for the families whose templates have one) so the model answers next.
     */
    public String render(List<ChatMessage> messages, boolean addAssistantPrefix) {
        return renderPrompt(messages, addAssistantPrefix).text();
    }

    /**
     * As {@link #render(List, boolean)}, remembering which characters are message text, so the
     * prompt can be tokenized with special tokens parsed in the template's text only.
     */
    public ChatPrompt renderPrompt(List<ChatMessage> messages, boolean addAssistantPrefix) {
        Objects.requireNonNull(messages, "messages");
        StringBuilder out = new StringBuilder(prefix);
        format.render(ChatPrompt.markAll(messages), addAssistantPrefix, out);
        return ChatPrompt.unmark(out);
    }

    /** The recognised family: llama3, chatml, phi4, llama2, mistral[-v1|-v3|-v3-tekken|-v7], gemma, phi3, zephyr or plain. */
    public String family() {
        return format.family();
    }

    /** Why the plain fallback is in use, when it is. */
    public Optional<String> warning() {
        return Optional.ofNullable(warning);
    }

    /** Texts that mark the end of the assistant's turn, for callers that stop on text (EOG tokens stop anyway). */
    public List<String> stopStrings() {
        return format.stopStrings();
    }
}

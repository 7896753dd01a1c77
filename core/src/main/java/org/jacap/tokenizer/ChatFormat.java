package org.jacap.tokenizer;

import java.util.List;
import java.util.Locale;

/**
 * How one family of chat templates lays a conversation out: the text each official template
 * produces, written out by hand for the families Jacap recognises (no Jinja interpreter).
 * Special-token texts are rendered as text; encode the result with {@code parseSpecial = true}.
 */
sealed interface ChatFormat {

    String family();

    void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out);

    List<String> stopStrings();

    private static boolean isSystem(ChatMessage m) {
        return m.role().equals("system");
    }

    /**
     * Python's {@code str.strip()} / Jinja's {@code trim}: Unicode whitespace at both ends. Message
     * text arrives wrapped in {@link ChatPrompt} markers: they are looked through and kept.
     */
    private static String trim(String s) {
        int n = s.length();
        int first = 0;
        while (first < n && (ChatPrompt.isMarker(s.charAt(first)) || Character.isWhitespace(s.charAt(first)))) {
            first++;
        }
        int last = n - 1;
        while (last >= first && (ChatPrompt.isMarker(s.charAt(last)) || Character.isWhitespace(s.charAt(last)))) {
            last--;
        }
        StringBuilder out = new StringBuilder(n);
        markersIn(s, 0, first, out);
        out.append(s, first, last + 1);
        markersIn(s, Math.max(first, last + 1), n, out);
        return out.toString();
    }

    /** Whether {@code s} holds more than {@link ChatPrompt} markers. */
    private static boolean hasText(CharSequence s) {
        return s.chars().anyMatch(c -> !ChatPrompt.isMarker((char) c));
    }

    /** Phi-3's and Zephyr's layout: {@code <|role|>\ncontent END\n} per message, prompt {@code <|assistant|>\n}. */
    private static void roleTagTurns(
            List<ChatMessage> messages, String endOfTurn, boolean addAssistantPrefix, StringBuilder out) {
        for (ChatMessage m : messages) {
            out.append("<|")
                    .append(m.role())
                    .append("|>\n")
                    .append(m.content())
                    .append(endOfTurn)
                    .append('\n');
        }
        if (addAssistantPrefix) {
            out.append("<|assistant|>\n");
        }
    }

    private static void markersIn(String s, int from, int to, StringBuilder out) {
        for (int i = from; i < to; i++) {
            if (ChatPrompt.isMarker(s.charAt(i))) {
                out.append(s.charAt(i));
            }
        }
    }

    /**
     * Llama 3: {@code <|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>}, contents trimmed.
     * Llama 3.1/3.2 templates always open with a system turn that states a knowledge cutoff and a date
     * ({@code datedSystem} holds that date then, else null).
     */
    record Llama3(String datedSystem) implements ChatFormat {
        @Override
        public String family() {
            return "llama3";
        }

        @Override
        public void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out) {
            int first = 0;
            if (datedSystem != null) {
                String system = !messages.isEmpty() && isSystem(messages.getFirst())
                        ? trim(messages.getFirst().content())
                        : "";
                first = !messages.isEmpty() && isSystem(messages.getFirst()) ? 1 : 0;
                out.append("<|start_header_id|>system<|end_header_id|>\n\n")
                        .append("Cutting Knowledge Date: December 2023\n")
                        .append("Today Date: ")
                        .append(datedSystem)
                        .append("\n\n")
                        .append(system)
                        .append("<|eot_id|>");
            }
            for (ChatMessage m : messages.subList(first, messages.size())) {
                header(m.role(), out).append(trim(m.content())).append("<|eot_id|>");
            }
            if (addAssistantPrefix) {
                header("assistant", out);
            }
        }

        private static StringBuilder header(String role, StringBuilder out) {
            return out.append("<|start_header_id|>").append(role).append("<|end_header_id|>\n\n");
        }

        @Override
        public List<String> stopStrings() {
            return List.of("<|eot_id|>", "<|eom_id|>");
        }
    }

    /**
     * ChatML (Qwen, Yi, DBRX, ...): {@code <|im_start|>role\ncontent<|im_end|>\n}; Phi-4 uses
     * {@code <|im_sep|>} after the role and no newline. {@code defaultSystem} is the system
     * message the template inserts when the conversation has none (Qwen, DBRX), or null.
     */
    record ChatMl(String separator, String turnEnd, String defaultSystem) implements ChatFormat {
        @Override
        public String family() {
            return separator.equals("\n") ? "chatml" : "phi4";
        }

        @Override
        public void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out) {
            if (defaultSystem != null && (messages.isEmpty() || !isSystem(messages.getFirst()))) {
                turn("system", defaultSystem, out);
            }
            for (ChatMessage m : messages) {
                turn(m.role(), m.content(), out);
            }
            if (addAssistantPrefix) {
                out.append("<|im_start|>assistant").append(separator);
            }
        }

        private void turn(String role, String content, StringBuilder out) {
            out.append("<|im_start|>")
                    .append(role)
                    .append(separator)
                    .append(content)
                    .append(turnEnd);
        }

        @Override
        public List<String> stopStrings() {
            return List.of("<|im_end|>");
        }
    }

    /**
     * Llama 2 chat (the official template): the system message goes inside the first user turn
     * between {@code <<SYS>>} markers; every user turn opens with BOS, every answer ends with EOS.
     * The template has no generation prompt: {@code [/INST]} already hands the turn over.
     */
    record Llama2(String bos, String eos, boolean firstBos) implements ChatFormat {
        @Override
        public String family() {
            return "llama2";
        }

        @Override
        public void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out) {
            String system = null;
            int start = 0;
            if (!messages.isEmpty() && isSystem(messages.getFirst())) {
                system = messages.getFirst().content();
                start = 1;
            }
            boolean first = true;
            for (ChatMessage m : messages.subList(start, messages.size())) {
                String content = m.content();
                if (first && system != null) {
                    content = "<<SYS>>\n" + system + "\n<</SYS>>\n\n" + content;
                }
                if (m.role().equals("user")) {
                    if (!first || firstBos) {
                        out.append(bos);
                    }
                    out.append("[INST] ").append(trim(content)).append(" [/INST]");
                } else {
                    out.append(' ').append(trim(content)).append(' ').append(eos);
                }
                first = false;
            }
        }

        @Override
        public List<String> stopStrings() {
            return List.of(eos, "[INST]");
        }
    }

    /**
     * Mistral instruct formats, as llama.cpp writes them from Mistral's reference tokenizers:
     * {@code v1}, {@code v3}, {@code v3-tekken} ({@code [INST]}, system text at the top of the
     * turn), {@code v7}/{@code v7-tekken} ({@code [SYSTEM_PROMPT]}), and the original v0.1/v0.2
     * template ("legacy": {@code [INST] user [/INST]answer</s>}, a system message prefixed to the
     * first user turn). No generation prompt: {@code [/INST]} hands the turn over.
     */
    record Mistral(String variant, String eos) implements ChatFormat {
        @Override
        public String family() {
            return variant.equals("legacy") ? "mistral" : "mistral-" + variant;
        }

        @Override
        public void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out) {
            switch (variant) {
                case "v7", "v7-tekken" -> {
                    String space = variant.equals("v7") ? " " : "";
                    for (ChatMessage m : messages) {
                        switch (m.role()) {
                            case "system" ->
                                out.append("[SYSTEM_PROMPT]")
                                        .append(space)
                                        .append(m.content())
                                        .append("[/SYSTEM_PROMPT]");
                            case "user" ->
                                out.append("[INST]")
                                        .append(space)
                                        .append(m.content())
                                        .append("[/INST]");
                            default -> out.append(space).append(m.content()).append(eos);
                        }
                    }
                }
                case "legacy" -> {
                    String pendingSystem = "";
                    for (ChatMessage m : messages) {
                        switch (m.role()) {
                            case "system" -> pendingSystem += m.content() + "\n\n";
                            case "user" -> {
                                out.append("[INST] ")
                                        .append(pendingSystem)
                                        .append(m.content())
                                        .append(" [/INST]");
                                pendingSystem = "";
                            }
                            default -> out.append(m.content()).append(eos);
                        }
                    }
                }
                default -> { // v1, v3, v3-tekken
                    String leading = variant.equals("v1") ? " " : "";
                    String trailing = variant.equals("v3-tekken") ? "" : " ";
                    boolean insideTurn = false;
                    for (ChatMessage m : messages) {
                        if (!insideTurn) {
                            out.append(leading).append("[INST]").append(trailing);
                            insideTurn = true;
                        }
                        switch (m.role()) {
                            case "system" -> out.append(m.content()).append("\n\n");
                            case "user" ->
                                out.append(m.content()).append(leading).append("[/INST]");
                            default -> {
                                out.append(trailing)
                                        .append(variant.equals("v3") ? trim(m.content()) : m.content())
                                        .append(eos);
                                insideTurn = false;
                            }
                        }
                    }
                }
            }
        }

        @Override
        public List<String> stopStrings() {
            return List.of(eos, "[INST]");
        }
    }

    /**
     * Gemma: {@code <start_of_turn>user\ncontent<end_of_turn>\n}, the assistant is called "model",
     * contents trimmed. Gemma has no system role; its text opens the first user turn, as Gemma 3's
     * template and llama.cpp do.
     */
    record Gemma() implements ChatFormat {
        @Override
        public String family() {
            return "gemma";
        }

        @Override
        public void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out) {
            StringBuilder system = new StringBuilder();
            for (ChatMessage m : messages) {
                if (isSystem(m)) {
                    system.append(trim(m.content()));
                    continue;
                }
                String role = m.role().equals("assistant") ? "model" : m.role();
                out.append("<start_of_turn>").append(role).append('\n');
                if (hasText(system) && !role.equals("model")) {
                    out.append(system).append("\n\n");
                    system.setLength(0);
                }
                out.append(trim(m.content())).append("<end_of_turn>\n");
            }
            if (addAssistantPrefix) {
                out.append("<start_of_turn>model\n");
            }
        }

        @Override
        public List<String> stopStrings() {
            return List.of("<end_of_turn>");
        }
    }

    /** Phi-3: {@code <|role|>\ncontent<|end|>\n}, generation prompt {@code <|assistant|>\n}. */
    record Phi3() implements ChatFormat {
        @Override
        public String family() {
            return "phi3";
        }

        @Override
        public void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out) {
            roleTagTurns(messages, "<|end|>", addAssistantPrefix, out);
        }

        @Override
        public List<String> stopStrings() {
            return List.of("<|end|>", "<|endoftext|>", "<|user|>");
        }
    }

    /** Zephyr: {@code <|role|>\ncontent</s>\n} (end-of-turn text = the model's EOS), prompt {@code <|assistant|>\n}. */
    record Zephyr(String endOfTurn) implements ChatFormat {
        @Override
        public String family() {
            return "zephyr";
        }

        @Override
        public void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out) {
            roleTagTurns(messages, endOfTurn, addAssistantPrefix, out);
        }

        @Override
        public List<String> stopStrings() {
            return List.of(endOfTurn, "<|user|>");
        }
    }

    /** The fallback for models without a recognised template: {@code User: …\nAssistant:}. */
    record Plain() implements ChatFormat {
        @Override
        public String family() {
            return "plain";
        }

        @Override
        public void render(List<ChatMessage> messages, boolean addAssistantPrefix, StringBuilder out) {
            for (ChatMessage m : messages) {
                out.append(label(m.role())).append(": ").append(m.content()).append('\n');
            }
            if (addAssistantPrefix) {
                out.append("Assistant:");
            }
        }

        private static String label(String role) {
            return role.isEmpty() ? role : role.substring(0, 1).toUpperCase(Locale.ROOT) + role.substring(1);
        }

        @Override
        public List<String> stopStrings() {
            return List.of("\nUser:");
        }
    }
}

package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.jacap.gguf.GgufFile;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** Each template family renders multi-turn conversations, with and without a system message, as its official template does. */
class ChatTemplateTest {
    static final Clock CLOCK = Clock.fixed(Instant.parse("2025-03-07T12:00:00Z"), ZoneOffset.UTC);

    static final List<ChatMessage> CHAT =
            List.of(ChatMessage.user("Hi"), ChatMessage.assistant("Hello!"), ChatMessage.user("How are you?"));
    static final List<ChatMessage> CHAT_WITH_SYSTEM = List.of(
            ChatMessage.system("You are helpful."),
            ChatMessage.user("Hi"),
            ChatMessage.assistant("Hello!"),
            ChatMessage.user("How are you?"));

    static ChatTemplate template(String source, boolean tokenizerAddsBos) {
        return ChatTemplate.fromTemplate(source, "<s>", "</s>", tokenizerAddsBos, CLOCK);
    }

    static final String LLAMA3 = "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
            + "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}"
            + "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
            + "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";

    @Test
    void llama3() {
        ChatTemplate t = ChatTemplate.fromTemplate(LLAMA3, "<|begin_of_text|>", "<|eot_id|>", true, CLOCK);
        assertThat(t.family()).isEqualTo("llama3");
        assertThat(t.warning()).isEmpty();
        assertThat(t.render(CHAT_WITH_SYSTEM, true))
                .isEqualTo("<|start_header_id|>system<|end_header_id|>\n\nYou are helpful.<|eot_id|>"
                        + "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                        + "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
                        + "<|start_header_id|>user<|end_header_id|>\n\nHow are you?<|eot_id|>"
                        + "<|start_header_id|>assistant<|end_header_id|>\n\n");
        assertThat(t.render(List.of(ChatMessage.user("  padded  ")), false))
                .isEqualTo("<|start_header_id|>user<|end_header_id|>\n\npadded<|eot_id|>");
        // a tokenizer that does not add BOS gets it as text
        ChatTemplate noBos = ChatTemplate.fromTemplate(LLAMA3, "<|begin_of_text|>", "<|eot_id|>", false, CLOCK);
        assertThat(noBos.render(CHAT, false)).startsWith("<|begin_of_text|><|start_header_id|>user");
        assertThat(t.stopStrings()).contains("<|eot_id|>");
    }

    @Test
    void llama31DatedSystemHeader() {
        String llama31 =
                "{{- bos_token }}{%- if not date_string is defined %}{%- set date_string = \"26 Jul 2024\" %}{%- endif %}"
                        + "{{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}{{- \"Cutting Knowledge Date: December 2023\\n\" }}"
                        + "{{- \"Today Date: \" + date_string + \"\\n\\n\" }}{{- system_message }}{{- \"<|eot_id|>\" }}"
                        + "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}";
        ChatTemplate t = ChatTemplate.fromTemplate(llama31, "<|begin_of_text|>", "<|eot_id|>", true, CLOCK);
        String header =
                "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n";
        assertThat(t.render(List.of(ChatMessage.user("Hi")), true))
                .isEqualTo(
                        header + "<|eot_id|>"
                                + "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
        assertThat(t.render(List.of(ChatMessage.system(" Be brief. "), ChatMessage.user("Hi")), false))
                .isEqualTo(header + "Be brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>");
        // Llama 3.2 prints today's date
        ChatTemplate t32 = ChatTemplate.fromTemplate(
                llama31.replace("set date_string = \"26 Jul 2024\"", "set date_string = strftime_now(\"%d %b %Y\")"),
                "<|begin_of_text|>",
                "<|eot_id|>",
                true,
                CLOCK);
        assertThat(t32.render(List.of(ChatMessage.user("Hi")), false)).contains("Today Date: 07 Mar 2025\n\n");
    }

    static final String QWEN2 = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
            + "{{ '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}{% endif %}{{'<|im_start|>' + message['role'] "
            + "+ '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}"
            + "{{ '<|im_start|>assistant\\n' }}{% endif %}";

    @Test
    void chatMlWithTheTemplatesDefaultSystemMessage() {
        ChatTemplate t = template(QWEN2, false);
        assertThat(t.family()).isEqualTo("chatml");
        assertThat(t.render(CHAT, true))
                .isEqualTo("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
                        + "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n"
                        + "<|im_start|>user\nHow are you?<|im_end|>\n<|im_start|>assistant\n");
        assertThat(t.render(CHAT_WITH_SYSTEM, false))
                .isEqualTo("<|im_start|>system\nYou are helpful.<|im_end|>\n"
                        + "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n"
                        + "<|im_start|>user\nHow are you?<|im_end|>\n");
        assertThat(t.stopStrings()).containsExactly("<|im_end|>");
        // plain ChatML (no default) by name
        assertThat(template("chatml", true).render(CHAT, true)).startsWith("<|im_start|>user\nHi<|im_end|>\n");
    }

    @Test
    void dbrxTemplateFromTheFixtureKeepsItsLongDefaultSystemMessage() throws IOException {
        Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab("dbrx"));
        ChatTemplate t;
        try (GgufFile file = GgufFile.open(Fixtures.vocab("dbrx"))) {
            t = ChatTemplate.fromMetadata(file.metadata(), tok);
        }
        assertThat(t.family()).isEqualTo("chatml");
        String prompt = t.render(List.of(ChatMessage.user("Hi")), true);
        assertThat(prompt)
                .startsWith("<|im_start|>system\nYou are DBRX, created by Databricks.")
                .contains("UNLESS THE INFORMATION IS DIRECTLY PERTINENT TO THE USER'S QUERY.<|im_end|>\n")
                .endsWith("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
        int[] ids = tok.encode(prompt, tok.addBosByDefault(), true);
        assertThat(ids[0]).isEqualTo(tok.tokenId("<|im_start|>"));
        assertThat(ids[ids.length - 2]).isEqualTo(tok.tokenId("assistant"));
    }

    static final String LLAMA2 = "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}"
            + "{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}"
            + "{% set system_message = false %}{% endif %}{% for message in loop_messages %}"
            + "{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message "
            + "+ '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['content'] %}{% endif %}"
            + "{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}"
            + "{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}";

    @Test
    void llama2() {
        ChatTemplate t = template(LLAMA2, true);
        assertThat(t.family()).isEqualTo("llama2");
        assertThat(t.render(CHAT_WITH_SYSTEM, true))
                .isEqualTo(
                        "[INST] <<SYS>>\nYou are helpful.\n<</SYS>>\n\nHi [/INST] Hello! </s><s>[INST] How are you? [/INST]");
        assertThat(t.render(CHAT, true)).isEqualTo("[INST] Hi [/INST] Hello! </s><s>[INST] How are you? [/INST]");
        assertThat(template(LLAMA2, false).render(CHAT, false)).startsWith("<s>[INST] Hi [/INST]");
    }

    static final String MISTRAL_V02 =
            "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != "
                    + "(loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
                    + "{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}"
                    + "{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% else %}"
                    + "{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}";

    @Test
    void mistral() {
        ChatTemplate legacy = template(MISTRAL_V02, true);
        assertThat(legacy.family()).isEqualTo("mistral");
        assertThat(legacy.render(CHAT, true)).isEqualTo("[INST] Hi [/INST]Hello!</s>[INST] How are you? [/INST]");
        assertThat(legacy.render(CHAT_WITH_SYSTEM, true))
                .isEqualTo("[INST] You are helpful.\n\nHi [/INST]Hello!</s>[INST] How are you? [/INST]");
        assertThat(template(MISTRAL_V02, false).render(CHAT, false)).startsWith("<s>[INST] Hi");

        ChatTemplate v3 = template(
                "{{ bos_token }}{% for message in messages %}[AVAILABLE_TOOLS]{{ '[INST] ' }}{% endfor %}", true);
        assertThat(v3.family()).isEqualTo("mistral-v3");
        assertThat(v3.render(CHAT_WITH_SYSTEM, true))
                .isEqualTo("[INST] You are helpful.\n\nHi[/INST] Hello!</s>[INST] How are you?[/INST]");

        ChatTemplate v7 = template("{{ bos_token }}{{ '[SYSTEM_PROMPT]' }}{{ '[INST]' }}", true);
        assertThat(v7.family()).isEqualTo("mistral-v7");
        assertThat(v7.render(CHAT_WITH_SYSTEM, true))
                .isEqualTo(
                        "[SYSTEM_PROMPT] You are helpful.[/SYSTEM_PROMPT][INST] Hi[/INST] Hello!</s>[INST] How are you?[/INST]");
        assertThat(template("mistral-v7-tekken", true).render(CHAT, true))
                .isEqualTo("[INST]Hi[/INST]Hello!</s>[INST]How are you?[/INST]");
    }

    static final String GEMMA =
            "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}"
                    + "{% endif %}{% for message in messages %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}"
                    + "{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim "
                    + "+ '<end_of_turn>\\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}";

    @Test
    void gemma() {
        ChatTemplate t = template(GEMMA, true);
        assertThat(t.family()).isEqualTo("gemma");
        assertThat(t.render(CHAT, true))
                .isEqualTo("<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n"
                        + "<start_of_turn>user\nHow are you?<end_of_turn>\n<start_of_turn>model\n");
        assertThat(t.render(CHAT_WITH_SYSTEM, false))
                .isEqualTo(
                        "<start_of_turn>user\nYou are helpful.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n"
                                + "<start_of_turn>user\nHow are you?<end_of_turn>\n");
        assertThat(ChatTemplate.fromTemplate(GEMMA, "<bos>", "<eos>", false, CLOCK)
                        .render(CHAT, false))
                .startsWith("<bos><start_of_turn>");
        assertThat(t.stopStrings()).containsExactly("<end_of_turn>");
    }

    @Test
    void phi3FromTheFixture() throws IOException {
        Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab("phi-3"));
        ChatTemplate t;
        try (GgufFile file = GgufFile.open(Fixtures.vocab("phi-3"))) {
            t = ChatTemplate.fromMetadata(file.metadata(), tok);
        }
        assertThat(t.family()).isEqualTo("phi3");
        String prompt = t.render(CHAT, true);
        // the template starts with {{ bos_token }}, but the tokenizer adds BOS itself
        assertThat(prompt)
                .isEqualTo(
                        "<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n<|user|>\nHow are you?<|end|>\n<|assistant|>\n");
        assertThat(t.render(CHAT_WITH_SYSTEM, true))
                .startsWith("<|system|>\nYou are helpful.<|end|>\n<|user|>\nHi<|end|>\n");
        int[] ids = tok.encode(prompt, tok.addBosByDefault(), true);
        assertThat(ids).startsWith(1, 32010).endsWith(32007, 32001);
        assertThat(tok.decode(ids)).isEqualTo(" Hi Hello! How are you?"); // control tokens print nothing
    }

    static final String ZEPHYR =
            "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + message['content'] "
                    + "+ eos_token }}\n{% elif message['role'] == 'system' %}\n{{ '<|system|>\n' + message['content'] + eos_token }}\n"
                    + "{% elif message['role'] == 'assistant' %}\n{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n{% endif %}\n"
                    + "{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n{% endfor %}";

    @Test
    void zephyr() {
        ChatTemplate t = template(ZEPHYR, true);
        assertThat(t.family()).isEqualTo("zephyr");
        assertThat(t.render(CHAT_WITH_SYSTEM, true))
                .isEqualTo(
                        "<|system|>\nYou are helpful.</s>\n<|user|>\nHi</s>\n<|assistant|>\nHello!</s>\n<|user|>\nHow are you?</s>\n<|assistant|>\n");
        assertThat(t.render(CHAT, false))
                .isEqualTo("<|user|>\nHi</s>\n<|assistant|>\nHello!</s>\n<|user|>\nHow are you?</s>\n");
    }

    @Test
    void missingOrUnknownTemplatesFallBackToPlainWithAWarning() throws IOException {
        ChatTemplate none = template(null, true);
        assertThat(none.family()).isEqualTo("plain");
        assertThat(none.warning()).get().asString().contains("no chat template");
        assertThat(none.render(CHAT, true)).isEqualTo("User: Hi\nAssistant: Hello!\nUser: How are you?\nAssistant:");
        assertThat(none.render(CHAT_WITH_SYSTEM, false))
                .isEqualTo("System: You are helpful.\nUser: Hi\nAssistant: Hello!\nUser: How are you?\n");
        ChatTemplate odd = template("{% for m in messages %}{{ m['content'] }}{% endfor %}", true);
        assertThat(odd.family()).isEqualTo("plain");
        assertThat(odd.warning()).get().asString().contains("unrecognised");

        Tokenizer gpt2 = TokenizerFixtures.load(Fixtures.vocab("gpt-2"));
        try (GgufFile file = GgufFile.open(Fixtures.vocab("gpt-2"))) {
            assertThat(ChatTemplate.fromMetadata(file.metadata(), gpt2).warning())
                    .isPresent();
        }
    }

    @Test
    void defaultSystemExtraction() {
        assertThat(ChatTemplate.defaultSystem("{% set system_message = 'It\\'s me.\\nHi' %}"))
                .isEqualTo("It's me.\nHi");
        assertThat(ChatTemplate.defaultSystem("{% set system_message = messages[0]['content'] %}"))
                .isNull();
        assertThat(
                        ChatTemplate.defaultSystem(
                                "{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}"))
                .isEqualTo("You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
    }
}

package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The names `--chat-template` lists are exactly the ones fromTemplate knows by name. */
class ChatTemplateNamesTest {

    @Test
    void everyListedNameSelectsItsFamilyWithoutAWarning() {
        for (String name : ChatTemplate.NAMES) {
            ChatTemplate t = ChatTemplate.fromTemplate(name, "<s>", "</s>", true, Clock.systemUTC());
            assertThat(t.warning()).as(name).isEmpty();
            assertThat(t.family()).as(name).isNotBlank();
        }
        ChatTemplate unknown = ChatTemplate.fromTemplate("vicuna", "<s>", "</s>", true, Clock.systemUTC());
        assertThat(unknown.warning()).isPresent();
        assertThat(ChatTemplate.NAMES).doesNotHaveDuplicates().containsAll(List.of("chatml", "llama3", "gemma"));
    }
}

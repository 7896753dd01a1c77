package org.jacap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Every help text is a valid format string: picocli formats the annotation texts with
 * String.format, and a bare '%' (e.g. "95% intervals") makes it print "[picocli WARN]" lines
 * above the usage. Reads the annotations themselves (picocli's model returns processed text).
 */
class HelpTextTest {

    @Test
    void everyDescriptionIsAValidFormatString() {
        CommandLine root = new CommandLine(new JacapCli());
        List<String> texts = new ArrayList<>();
        for (CommandLine sub : root.getSubcommands().values()) {
            collect(sub.getCommand().getClass(), texts);
        }
        collect(JacapCli.class, texts);
        assertThat(texts).hasSizeGreaterThan(50);
        for (String text : texts) {
            assertThatCode(() -> String.format(text)).as(text).doesNotThrowAnyException();
        }
    }

    private static void collect(Class<?> type, List<String> texts) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            Command command = c.getAnnotation(Command.class);
            if (command != null) {
                texts.addAll(List.of(command.description()));
            }
            for (Field f : c.getDeclaredFields()) {
                Option option = f.getAnnotation(Option.class);
                if (option != null) {
                    texts.add(String.join("", option.description()));
                }
                if (f.getAnnotation(CommandLine.Mixin.class) != null) {
                    collect(f.getType(), texts);
                }
            }
        }
    }
}

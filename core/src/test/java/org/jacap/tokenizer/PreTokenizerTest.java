package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The hand-written GPT-2 and Llama-3 scanners agree with their regexes (run by java.util.regex in
 * Unicode mode, where {@code \s} is White_Space as in llama.cpp) on random strings built from the
 * characters that make pre-tokenizers differ; and llama.cpp's collapsed-regex quirks hold.
 */
class PreTokenizerTest {
    static final Pattern GPT2 = Pattern.compile(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
            Pattern.UNICODE_CHARACTER_CLASS);
    static final Pattern LLAMA3 = Pattern.compile(
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
                    + "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
            Pattern.UNICODE_CHARACTER_CLASS);

    static final String[] ALPHABET = {
        "a", "Z", "é", "ß", "я", "中", "ก", "1", "9", "٣", "½", " ", " ", " ", "\t", "\n", "\r", "\u00a0", "\u3000", "'",
        "'s", "'T", "'ll", "'Re", ".", ",", "!", "~", "$", "-", "(", "🦙", "\u200d", "\u0301", "_"
    };

    @Test
    void gpt2ScannerMatchesTheRegex() {
        compare(new Gpt2Split(), GPT2, 1);
    }

    @Test
    void llama3ScannerMatchesTheRegex() {
        compare(new Llama3Split(), LLAMA3, 2);
    }

    private static void compare(SplitRule rule, Pattern regex, long seed) {
        Random random = new Random(seed);
        for (int round = 0; round < 3000; round++) {
            StringBuilder sb = new StringBuilder();
            int len = 1 + random.nextInt(14);
            for (int i = 0; i < len; i++) {
                sb.append(ALPHABET[random.nextInt(ALPHABET.length)]);
            }
            String text = sb.toString();
            assertThat(scan(rule, text))
                    .as("words of \"%s\"", VocabFixtureTest.abbreviate(text))
                    .isEqualTo(regexWords(regex, text));
        }
    }

    static List<String> scan(SplitRule rule, String text) {
        int[] cps = text.codePoints().toArray();
        SplitText split = new SplitText(cps);
        IntList ends = new IntList();
        rule.split(split, 0, cps.length, ends);
        return cut(cps, ends);
    }

    static List<String> regexWords(Pattern regex, String text) {
        List<String> words = new ArrayList<>();
        Matcher m = regex.matcher(text);
        int previous = 0;
        while (m.find()) {
            if (m.start() > previous) {
                words.add(text.substring(previous, m.start()));
            }
            words.add(m.group());
            previous = m.end();
        }
        if (previous < text.length()) {
            words.add(text.substring(previous));
        }
        return words;
    }

    @Test
    void collapsedRegexUsesLlamaCppCategoryTables() {
        assertThat(RegexSplit.collapse("\\p{N}+")).isEqualTo("[\u00D10-9]+");
        assertThat(RegexSplit.collapse("[^\\r\\n\\p{L}\\p{N}]?\\p{L}+"))
                .isEqualTo("[^\\r\\n\u00D2A-Za-z\u00D10-9]?[\u00D2A-Za-z]+");
        // In llama.cpp's tables '~' is neither punctuation nor symbol, so the default
        // pre-tokenizer's first rule ([\p{P}$+<=>^~|]+) only takes it through its own literal '~'.
        RegexSplit punctuation = new RegexSplit("\\p{P}+");
        assertThat(scan(punctuation, "a~!?b")).containsExactly("a~", "!?", "b");
        assertThat(scan(punctuation, "x、。y")).containsExactly("x", "、。", "y"); // non-ASCII via stand-ins
    }

    @Test
    void presetsSplitLikeLlamaCpp() {
        List<String> warnings = new ArrayList<>();
        PreTokenizer qwen = PreTokenizer.forName("qwen2", warnings);
        assertThat(words(qwen, "I'm 12345 ok")).containsExactly("I", "'m", " ", "1", "2", "3", "4", "5", " ok");
        PreTokenizer llama3 = PreTokenizer.forName("llama-bpe", warnings);
        assertThat(llama3.ignoreMerges()).isTrue();
        assertThat(llama3.addBos()).isTrue();
        assertThat(words(llama3, "I'm 12345 ok")).containsExactly("I", "'m", " ", "123", "45", " ok");
        PreTokenizer deepseek = PreTokenizer.forName("deepseek-llm", warnings);
        assertThat(words(deepseek, "Hello 世界!\n")).containsExactly("Hello", " ", "世界", "!", "\n");
        assertThat(warnings).isEmpty();
        PreTokenizer.forName("not-a-pre", warnings);
        assertThat(warnings).singleElement().asString().contains("not-a-pre");
    }

    static List<String> words(PreTokenizer pre, String text) {
        int[] cps = text.codePoints().toArray();
        return cut(cps, pre.split(new SplitText(cps)));
    }

    /** The words that end at each of ENDS. */
    private static List<String> cut(int[] cps, IntList ends) {
        List<String> words = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < ends.size(); i++) {
            words.add(new String(cps, start, ends.get(i) - start));
            start = ends.get(i);
        }
        return words;
    }

    @Test
    void spaceCleanupFollowsTheReferencePasses() {
        assertThat(SpaceCleanup.apply("Hello , world !")).isEqualTo("Hello, world!");
        assertThat(SpaceCleanup.apply("a ' b")).isEqualTo("a'b");
        assertThat(SpaceCleanup.apply("it 's we 're they 've I 'm")).isEqualTo("it's we're they've I'm");
        assertThat(SpaceCleanup.apply("don 't we 'll")).isEqualTo("don 't we 'll"); // kept, as in llama.cpp
        assertThat(SpaceCleanup.apply("")).isEmpty();
        assertThat(SpaceCleanup.apply(" .")).isEqualTo(".");
    }
}

package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** decode(encode(x)) == x for assorted scripts, emoji and combining marks, in every fixture vocabulary. */
class RoundTripTest {
    static final List<String> TEXTS = List.of(
            "Hello world",
            "Grüße aus Köln, Führer, naïve café",
            "日本語のテキストと中文测试",
            "한국어 문장입니다",
            "Ελληνικά και русский язык",
            "עברית ועربية",
            "emoji 🦙🚀 😶‍🌫️ 👩🏽‍💻 🇫🇷",
            "combining e\u0301 a\u0308 n\u0303 ḉ",
            "क्षत्रिय தமிழ் ไทย",
            "math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ∑∫√ and ﬁ ligature",
            "tab\there\nnew line\r\nwindows",
            "  leading and trailing  ",
            "\u00a0no-break\u2009thin\u3000ideographic space",
            "numbers 1234567 3.14159 ½ ⅔ ٣٤٥",
            "code: if (x != y) { return a->b; } // ~tilde ^caret `tick`");

    static final List<String> VOCABS = List.of("llama-spm", "phi-3", "gpt-2", "dbrx", "deepseek-llm");
    /** Vocabularies whose decoding applies clean_up_tokenization_spaces (" !" → "!"), as llama.cpp does. */
    static final Set<String> CLEANS_SPACES = Set.of("gpt-2", "dbrx");

    @TestFactory
    Stream<DynamicTest> decodeOfEncodeIsIdentity() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String vocab : VOCABS) {
            for (String text : TEXTS) {
                tests.add(DynamicTest.dynamicTest(vocab + ": " + VocabFixtureTest.abbreviate(text), () -> {
                    Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab(vocab));
                    String decoded = CLEANS_SPACES.contains(vocab) ? text.replace("x != y", "x!= y") : text;
                    int[] ids = tok.encode(text, false, false);
                    assertThat(tok.decode(ids)).isEqualTo(decoded);
                    if (tok.bosId() >= 0) {
                        int[] withBos = tok.encode(text, true, false);
                        assertThat(withBos[0]).isEqualTo(tok.bosId());
                        String expected = tok instanceof SentencePieceTokenizer ? " " + decoded : decoded;
                        assertThat(tok.decode(withBos)).isEqualTo(expected);
                    }
                }));
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> streamingNeverEmitsPartialCharacters() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String vocab : VOCABS) {
            tests.add(DynamicTest.dynamicTest(vocab, () -> {
                Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab(vocab));
                for (String text : TEXTS) {
                    int[] ids = tok.encode(text, false, false);
                    StreamingDecoder stream = tok.streamingDecoder();
                    StringBuilder all = new StringBuilder();
                    for (int id : ids) {
                        String part = stream.accept(id);
                        assertThat(part).doesNotContain("\uFFFD");
                        assertThat(isWellFormed(part))
                                .as("well-formed UTF-16: %s", part)
                                .isTrue();
                        all.append(part);
                    }
                    all.append(stream.flush());
                    // streaming keeps the first token's leading space: it equals decode with BOS in front
                    String expected = tok instanceof SentencePieceTokenizer ? " " + text : text;
                    assertThat(all.toString()).isEqualTo(expected);
                }
            }));
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> sentencePieceWordByWordMergingEqualsWholeTextMerging() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String vocab : List.of("llama-spm", "phi-3")) {
            tests.add(DynamicTest.dynamicTest(vocab, () -> {
                SentencePieceTokenizer tok = (SentencePieceTokenizer) TokenizerFixtures.load(Fixtures.vocab(vocab));
                java.util.Random random = new java.util.Random(3);
                for (int round = 0; round < 300; round++) {
                    StringBuilder sb = new StringBuilder();
                    for (int i = 0; i < 1 + random.nextInt(12); i++) {
                        sb.append(TEXTS.get(random.nextInt(TEXTS.size())), 0, 1 + random.nextInt(8));
                        sb.append(" ".repeat(random.nextInt(3)));
                    }
                    String text = sb.toString();
                    assertThat(tok.encode(text, false, false, true))
                            .as(text)
                            .containsExactly(tok.encode(text, false, false, false));
                }
            }));
        }
        return tests.stream();
    }

    static boolean isWellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}

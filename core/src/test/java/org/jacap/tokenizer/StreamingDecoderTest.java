package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** The streaming decoder holds partial UTF-8 sequences back and never emits broken characters. */
class StreamingDecoderTest {

    @Test
    void byteTokensAreHeldUntilTheCharacterIsComplete() {
        Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab("llama-spm"));
        // 🚀 = F0 9F 9A 80; SentencePiece byte tokens are <0xXX> = 3 + byte
        StreamingDecoder stream = tok.streamingDecoder();
        assertThat(stream.accept(3 + 0xF0)).isEmpty();
        assertThat(stream.accept(3 + 0x9F)).isEmpty();
        assertThat(stream.accept(3 + 0x9A)).isEmpty();
        assertThat(stream.accept(3 + 0x80)).isEqualTo("🚀");
        assertThat(stream.accept(tok.tokenId("▁ok"))).isEqualTo(" ok");
        assertThat(stream.flush()).isEmpty();
    }

    @Test
    void invalidBytesBecomeReplacementCharacters() {
        Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab("llama-spm"));
        StreamingDecoder stream = tok.streamingDecoder();
        assertThat(stream.accept(3 + 0xE6)).isEmpty(); // a 3-byte lead ...
        assertThat(stream.accept(tok.tokenId("a"))).isEqualTo("\uFFFDa"); // ... broken by ASCII
        assertThat(stream.accept(3 + 0x80)).isEqualTo("\uFFFD"); // a stray continuation byte
        assertThat(stream.accept(3 + 0xE6)).isEmpty();
        assertThat(stream.accept(3 + 0x97)).isEmpty();
        assertThat(stream.flush()).isEqualTo("\uFFFD"); // unfinished at the end
        assertThat(stream.flush()).isEmpty();
    }

    @Test
    void byteLevelBpePiecesSplitInsideACharacter() {
        Tokenizer tok = TokenizerFixtures.load(Fixtures.vocab("gpt-2"));
        int[] ids = tok.encode("🦙", false, false); // several tokens, each a fragment of F0 9F A6 99
        assertThat(ids.length).isGreaterThan(1);
        StreamingDecoder stream = tok.streamingDecoder();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < ids.length; i++) {
            String part = stream.accept(ids[i]);
            if (i < ids.length - 1) {
                assertThat(part).isEmpty();
            }
            out.append(part);
        }
        assertThat(out.toString()).isEqualTo("🦙");
    }

    @Test
    void completePrefixKeepsOnlyValidIncompleteTails() {
        byte[] b = {'a', (byte) 0xE2, (byte) 0x82};
        assertThat(Utf8.completePrefix(b, 3)).isEqualTo(1); // E2 82 may become "€"
        assertThat(Utf8.completePrefix(b, 2)).isEqualTo(1);
        byte[] bad = {'a', (byte) 0xE0, (byte) 0x80}; // E0 80 can never be completed
        assertThat(Utf8.completePrefix(bad, 3)).isEqualTo(3);
        byte[] surrogate = {(byte) 0xED, (byte) 0xA0}; // would encode a surrogate
        assertThat(Utf8.completePrefix(surrogate, 2)).isEqualTo(2);
        byte[] four = {(byte) 0xF0, (byte) 0x9F, (byte) 0x98};
        assertThat(Utf8.completePrefix(four, 3)).isZero();
        byte[] complete = {(byte) 0xC3, (byte) 0xA9};
        assertThat(Utf8.completePrefix(complete, 2)).isEqualTo(2);
    }
}

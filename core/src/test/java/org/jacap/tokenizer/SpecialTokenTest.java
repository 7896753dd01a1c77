package org.jacap.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jacap.JacapException;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufMetadata;
import org.jacap.gguf.GgufValue;
import org.jacap.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** Special-token parsing, BOS/EOS flags, end-of-generation detection and metadata edge cases. */
class SpecialTokenTest {

    static Tokenizer vocab(String name) {
        return TokenizerFixtures.load(Fixtures.vocab(name));
    }

    @Test
    void phi3AddedTokensAreParsedAndSwallowTheWhitespaceAfterThem() {
        Tokenizer tok = vocab("phi-3");
        // <|user|> 32010, ▁Hello 15043, <|end|> 32007, <|assistant|> 32001: Phi-3's added tokens
        // right-strip, so the newlines after them vanish (llama.cpp and HF agree), and text after a
        // special token gets the SentencePiece space prefix again.
        assertThat(tok.encode("<|user|>\nHello<|end|>\n<|assistant|>\n", true, true))
                .containsExactly(1, 32010, 15043, 32007, 32001);
        // Without parseSpecial the control tokens are plain text ...
        int[] plain = tok.encode("<|user|>", false, false);
        assertThat(plain).doesNotContain(32010).hasSizeGreaterThan(1);
        assertThat(tok.decode(plain)).isEqualTo("<|user|>");
        // ... but the user-defined </s> is still recognised, as in llama.cpp and HF.
        assertThat(tok.encode("a</s>b", false, false)).contains(2);
    }

    @Test
    void controlTokensRenderOnlyAsPieces() {
        Tokenizer tok = vocab("phi-3");
        int[] ids = tok.encode("<|user|>\nHi<|end|>", true, true);
        assertThat(tok.decode(ids)).isEqualTo(" Hi");
        assertThat(tok.piece(32010)).isEqualTo("<|user|>");
        assertThat(tok.piece(13)).isEqualTo("\n"); // <0x0A>
        assertThat(tok.piece(243)).isEqualTo("<0xF0>"); // a lone lead byte is no character
    }

    @Test
    void gpt2EndOfTextIsParsedOnlyWhenAsked() {
        Tokenizer tok = vocab("gpt-2");
        assertThat(tok.encode("Hi<|endoftext|>", false, true)).containsExactly(17250, 50256);
        assertThat(tok.encode("Hi<|endoftext|>", false, false)).doesNotContain(50256);
        assertThat(tok.decode(new int[] {17250, 50256})).isEqualTo("Hi");
        assertThat(tok.isEndOfGeneration(50256)).isTrue();
        assertThat(tok.addBosByDefault()).isFalse();
        assertThat(tok.bosId()).isEqualTo(50256);
        assertThat(tok.eosId()).isEqualTo(50256);
    }

    @Test
    void chatMlTokensInDbrx() {
        Tokenizer tok = vocab("dbrx");
        int imStart = tok.tokenId("<|im_start|>");
        int imEnd = tok.tokenId("<|im_end|>");
        assertThat(imStart).isEqualTo(100278);
        int[] ids = tok.encode("<|im_start|>user\nHi<|im_end|>\n", false, true);
        assertThat(ids[0]).isEqualTo(imStart);
        assertThat(ids).contains(imEnd);
        assertThat(tok.decode(ids)).isEqualTo("user\nHi\n");
        assertThat(tok.isEndOfGeneration(imEnd)).isTrue();
        assertThat(tok.isEndOfGeneration(tok.eosId())).isTrue();
        assertThat(tok.isEndOfGeneration(imStart)).isFalse();
        assertThat(tok.eotId()).isEqualTo(imEnd);
        assertThat(tok.addBosByDefault()).isFalse();
    }

    @Test
    void bosAndEndOfGenerationFlags() {
        Tokenizer spm = vocab("llama-spm");
        assertThat(spm.addBosByDefault()).isTrue();
        assertThat(spm.addEosByDefault()).isFalse();
        assertThat(spm.bosId()).isEqualTo(1);
        assertThat(spm.isEndOfGeneration(2)).isTrue();
        assertThat(spm.encode("<s>", false, true)).containsExactly(1);

        Tokenizer phi = vocab("phi-3");
        assertThat(phi.eosId()).isEqualTo(32000);
        assertThat(phi.isEndOfGeneration(32000)).isTrue(); // <|endoftext|>
        assertThat(phi.isEndOfGeneration(32007)).isTrue(); // <|end|>
        assertThat(phi.isEndOfGeneration(32001)).isFalse(); // <|assistant|>

        Tokenizer deepseek = vocab("deepseek-llm");
        assertThat(deepseek.addBosByDefault()).isTrue();
        assertThat(deepseek.bosId()).isEqualTo(100000);
        assertThat(deepseek.isEndOfGeneration(100001)).isTrue();
    }

    @Test
    void unknownPreTokenizerFallsBackToDefaultWithAWarning() throws IOException {
        GgufMetadata meta = withOverride("gpt-2", "tokenizer.ggml.pre", new GgufValue.StringValue("no-such-pre"));
        Tokenizer tok = Tokenizer.fromMetadata(meta);
        assertThat(tok.warnings()).anyMatch(w -> w.contains("unknown pre-tokenizer 'no-such-pre'"));
        assertThat(((BytePairTokenizer) tok).preTokenizer()).isEqualTo("default");
        assertThat(tok.decode(tok.encode("Hello world 12345!", false, false))).isEqualTo("Hello world 12345!");
        assertThat(vocab("gpt-2").warnings()).isEmpty();
    }

    @Test
    void unsupportedModelAndBadIdsAreUserErrors() throws IOException {
        GgufMetadata meta = withOverride("gpt-2", "tokenizer.ggml.model", new GgufValue.StringValue("bert"));
        assertThatThrownBy(() -> Tokenizer.fromMetadata(meta))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("unsupported tokenizer model 'bert'");
        Tokenizer tok = vocab("gpt-2");
        assertThatThrownBy(() -> tok.decode(new int[] {50257}))
                .isInstanceOf(JacapException.class)
                .hasMessageContaining("token id 50257");
        assertThatThrownBy(() -> tok.streamingDecoder().accept(-1)).isInstanceOf(JacapException.class);
    }

    static GgufMetadata withOverride(String vocab, String key, GgufValue value) throws IOException {
        try (GgufFile file = GgufFile.open(Fixtures.vocab(vocab))) {
            Map<String, GgufValue> map = new LinkedHashMap<>(file.metadata().asMap());
            map.put(key, value);
            return new GgufMetadata(map);
        }
    }
}

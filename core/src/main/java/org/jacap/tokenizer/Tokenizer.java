package org.jacap.tokenizer;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.gguf.GgufMetadata;

/**
 * Text ↔ token ids for a GGUF model, reproducing llama.cpp's tokenizers: SentencePiece-style
 * ({@code tokenizer.ggml.model = llama}) and byte-level BPE ({@code gpt2}) with the pre-tokenizer
 * named by {@code tokenizer.ggml.pre}. Instances are immutable and safe to share between threads.
 */
public sealed interface Tokenizer permits VocabularyTokenizer {

    /** Builds the tokenizer that {@code tokenizer.ggml.*} metadata describes. */
    static Tokenizer fromMetadata(GgufMetadata metadata) {
        String model;
        try {
            model = metadata.getString("tokenizer.ggml.model");
        } catch (RuntimeException e) {
            throw new JacapException("tokenizer: " + e.getMessage(), e);
        }
        List<String> warnings = new ArrayList<>();
        return switch (model) {
            case "llama" -> new SentencePieceTokenizer(metadata, warnings);
            case "gpt2" -> new BytePairTokenizer(metadata, warnings);
            default ->
                throw new JacapException("unsupported tokenizer model '" + model
                        + "' (supported: llama = SentencePiece, gpt2 = byte-level BPE)");
        };
    }

    /**
     * Token ids of {@code text}. {@code addBos} prepends the BOS token; {@code parseSpecial} turns
     * control-token texts such as {@code <|im_start|>} into their ids (user-defined tokens are
     * always recognised, as in llama.cpp). Pass {@link #addBosByDefault()} for a model's usual prompt.
     */
    int[] encode(String text, boolean addBos, boolean parseSpecial);

    /**
     * Token ids of {@code text} with special tokens parsed, except that no special token (control,
     * unknown or user-defined) is recognised where it overlaps a character set in {@code literal}:
     * those characters are always plain text. Chat prompts use it so message text cannot forge
     * template markers ({@link ChatPrompt}).
     */
    int[] encode(String text, boolean addBos, BitSet literal);

    /**
     * Text of {@code ids} as llama.cpp's detokenizer gives it: control tokens print nothing, byte
     * tokens are assembled into UTF-8, and with a SentencePiece space prefix the leading space of
     * the first token is dropped unless the ids start with BOS.
     */
    String decode(int[] ids);

    /** The text of one token for display; control tokens show their name (e.g. {@code <s>}). */
    String piece(int id);

    /** A decoder for generated ids that never emits half a UTF-8 character. */
    StreamingDecoder streamingDecoder();

    int vocabSize();

    /** BOS id, or -1 when the vocabulary has none. */
    int bosId();

    /** EOS id, or -1 when the vocabulary has none. */
    int eosId();

    /** End-of-turn id ({@code eot_token_id} or a token such as {@code <|eot_id|>}), or -1. */
    int eotId();

    /** Unknown-token id, or -1. */
    int unknownId();

    /** True for every token that ends generation: EOS, EOT, EOM and the end-of-turn texts llama.cpp knows. */
    boolean isEndOfGeneration(int id);

    /** Whether prompts start with BOS ({@code tokenizer.ggml.add_bos_token}, else the kind's default). */
    boolean addBosByDefault();

    /** Whether llama.cpp appends EOS to prompts ({@code tokenizer.ggml.add_eos_token}). */
    boolean addEosByDefault();

    /** The id of the token whose text is exactly {@code text}, or -1. */
    int tokenId(String text);

    /** {@code tokenizer.ggml.model}: "llama" or "gpt2". */
    String model();

    /** Things a user may want to know about this vocabulary (e.g. an unknown pre-tokenizer). */
    List<String> warnings();
}

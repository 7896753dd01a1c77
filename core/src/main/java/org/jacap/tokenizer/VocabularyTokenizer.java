package org.jacap.tokenizer;

import java.util.List;

/**
 * What both tokenizer kinds share: the vocabulary (ids, texts, special tokens, BOS/EOS rules),
 * the special-token splitter and the decoder. Subclasses add only their merge algorithm.
 */
abstract sealed class VocabularyTokenizer implements Tokenizer permits SentencePieceTokenizer, BytePairTokenizer {
    final Vocabulary vocab;
    final SpecialTokenSplitter splitter;
    final TokenDecoder decoder;

    VocabularyTokenizer(Vocabulary vocab, boolean byteLevelDecoding) {
        this.vocab = vocab;
        this.splitter = new SpecialTokenSplitter(vocab);
        this.decoder = new TokenDecoder(vocab, byteLevelDecoding);
    }

    @Override
    public String decode(int[] ids) {
        return decoder.decode(ids);
    }

    @Override
    public String piece(int id) {
        return decoder.piece(id);
    }

    @Override
    public StreamingDecoder streamingDecoder() {
        return decoder.streaming();
    }

    @Override
    public int vocabSize() {
        return vocab.size();
    }

    @Override
    public int bosId() {
        return vocab.bosId;
    }

    @Override
    public int eosId() {
        return vocab.eosId;
    }

    @Override
    public int eotId() {
        return vocab.eotId;
    }

    @Override
    public int unknownId() {
        return vocab.unknownId;
    }

    @Override
    public boolean isEndOfGeneration(int id) {
        return vocab.isEndOfGeneration(id);
    }

    @Override
    public boolean addBosByDefault() {
        return vocab.addBos;
    }

    @Override
    public boolean addEosByDefault() {
        return vocab.addEos;
    }

    @Override
    public int tokenId(String text) {
        return vocab.index.get(text);
    }

    @Override
    public List<String> warnings() {
        return List.copyOf(vocab.warnings());
    }
}

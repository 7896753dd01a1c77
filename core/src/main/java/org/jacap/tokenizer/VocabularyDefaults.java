package org.jacap.tokenizer;

/**
 * What a tokenizer kind assumes when the GGUF metadata is silent (llama.cpp's defaults per
 * {@code tokenizer.ggml.model} and pre-tokenizer). Ids are -1 when the kind has no default.
 */
record VocabularyDefaults(
        int bosId,
        int eosId,
        int unknownId,
        boolean addBos,
        boolean addEos,
        boolean addSpacePrefix,
        boolean cleanSpaces) {}

package org.jacap.bench.reliability;

/** How one mutated file ended. Everything but {@link #CRASH} is a documented, clean outcome. */
enum FuzzOutcome {
    /** Loaded, tokenized and ran one forward step with finite logits. */
    RAN("ran"),
    /** {@code GgufFormatException}: not valid GGUF (names the byte). */
    FORMAT_REJECTED("GGUF rejected"),
    /** {@code JacapException} or {@code GgufMetadataException} (a missing or mistyped key) at load or from the tokenizer. */
    MODEL_REJECTED("model rejected"),
    /** {@code JacapException} from the forward step (non-finite logits). */
    FORWARD_REJECTED("forward rejected"),
    /** Any other exception or error: a bug. */
    CRASH("crash");

    final String label;

    FuzzOutcome(String label) {
        this.label = label;
    }
}

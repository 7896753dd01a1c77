package org.jacap.bench.synthetic;

import java.util.Locale;

/**
 * Llama-architecture shapes for synthetic models. {@code ONE_B} is Llama-3.2-1B (tied
 * embeddings, GQA 32/8, head dim 64, RoPE base 5e5 with Llama-3 frequency factors), the shape
 * compared with llama.cpp; {@code TINY} runs a whole bench in seconds.
 */
public enum SyntheticShape {
    TINY("tiny", "4M", 256, 4, 8, 4, 768, 4096, 2048, 10000f, false),
    ONE_B("1b", "1B", 2048, 16, 32, 8, 8192, 128256, 131072, 500000f, true);

    private final String id;
    private final String sizeLabel;
    private final int embedding;
    private final int layers;
    private final int heads;
    private final int kvHeads;
    private final int feedForward;
    private final int vocabulary;
    private final int contextLength;
    private final float ropeBase;
    private final boolean llama3RopeFactors;

    SyntheticShape(
            String id,
            String sizeLabel,
            int embedding,
            int layers,
            int heads,
            int kvHeads,
            int feedForward,
            int vocabulary,
            int contextLength,
            float ropeBase,
            boolean llama3RopeFactors) {
        this.id = id;
        this.sizeLabel = sizeLabel;
        this.embedding = embedding;
        this.layers = layers;
        this.heads = heads;
        this.kvHeads = kvHeads;
        this.feedForward = feedForward;
        this.vocabulary = vocabulary;
        this.contextLength = contextLength;
        this.ropeBase = ropeBase;
        this.llama3RopeFactors = llama3RopeFactors;
    }

    public static SyntheticShape parse(String name) {
        for (SyntheticShape s : values()) {
            if (s.id.equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown synthetic shape '" + name + "' (expected tiny or 1b)");
    }

    public String id() {
        return id;
    }

    public String sizeLabel() {
        return sizeLabel;
    }

    public int embedding() {
        return embedding;
    }

    public int layers() {
        return layers;
    }

    public int heads() {
        return heads;
    }

    public int kvHeads() {
        return kvHeads;
    }

    public int headDim() {
        return embedding / heads;
    }

    public int feedForward() {
        return feedForward;
    }

    public int vocabulary() {
        return vocabulary;
    }

    public int contextLength() {
        return contextLength;
    }

    public float ropeBase() {
        return ropeBase;
    }

    public boolean llama3RopeFactors() {
        return llama3RopeFactors;
    }

    @Override
    public String toString() {
        return id.toLowerCase(Locale.ROOT);
    }
}

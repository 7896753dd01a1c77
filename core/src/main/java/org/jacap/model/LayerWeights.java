package org.jacap.model;

/** The weights of one transformer block. */
public record LayerWeights(AttentionWeights attention, FeedForwardWeights feedForward) {}

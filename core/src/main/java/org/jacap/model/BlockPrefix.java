package org.jacap.model;

/**
 * The first {@link #layers()} blocks of one chunk of tokens, run once ({@link Model#forwardPrefix})
 * and finished on any number of states whose caches agree in those blocks ({@link
 * Model#forwardFrom}): the hidden rows entering block {@code layers} and the keys and values those
 * blocks appended. An evaluation teacher-forces the same continuation on dozens of compressed
 * copies of one cache; where compression leaves the first blocks alone (Gemma 3's sliding-window
 * layers before its first global one), their work is the same for every copy.
 *
 * <p>Opaque and immutable once built: only the model that made it reads it.
 */
public final class BlockPrefix {
    final ModelConfig config;
    final int position;
    final int length;
    final int layers;
    /** {@code [tokens][embedding]}: the residual stream entering block {@code layers}. */
    final float[] hidden;
    /** Per block below {@code layers}: the chunk's rotated keys {@code [tokens][keyDim]} and values. */
    final float[][] keys;

    final float[][] values;
    /** Per block below {@code layers} and KV head: the rows the cache held before the chunk. */
    final int[][] lengthsBefore;

    BlockPrefix(
            ModelConfig config,
            int position,
            int length,
            int layers,
            float[] hidden,
            float[][] keys,
            float[][] values,
            int[][] lengthsBefore) {
        this.config = config;
        this.position = position;
        this.length = length;
        this.layers = layers;
        this.hidden = hidden;
        this.keys = keys;
        this.values = values;
        this.lengthsBefore = lengthsBefore;
    }

    /** The position of the chunk's first token. */
    public int position() {
        return position;
    }

    /** Tokens in the chunk. */
    public int length() {
        return length;
    }

    /** Blocks already run: {@link Model#forwardFrom} starts at this one. */
    public int layers() {
        return layers;
    }
}

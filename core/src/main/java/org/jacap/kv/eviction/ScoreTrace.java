package org.jacap.kv.eviction;

/**
 * Receives a scorer's intermediate arrays (for tests and per-layer diagnostics). Names and row
 * meanings follow the fixture README: e.g. {@code "w"} row h is query head h's weights over the
 * scored tokens. Arrays handed over are copies the receiver may keep.
 */
@FunctionalInterface
public interface ScoreTrace {
    /** Discards everything; scorers skip the copies when given this. */
    ScoreTrace NONE = (name, row, values) -> {};

    void record(String name, int row, double[] values);

    default boolean enabled() {
        return this != NONE;
    }
}

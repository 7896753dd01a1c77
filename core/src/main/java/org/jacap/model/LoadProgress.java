package org.jacap.model;

/** Load progress: {@code done} of {@code total} bytes of tensor data touched, {@code what} being read. */
@FunctionalInterface
public interface LoadProgress {
    LoadProgress NONE = (done, total, what) -> {};

    void update(long done, long total, String what);
}

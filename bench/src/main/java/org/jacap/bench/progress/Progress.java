package org.jacap.bench.progress;

/** Receives progress of a long task: {@code done} of {@code total} units, and what is being done. */
@FunctionalInterface
public interface Progress {
    Progress NONE = (done, total, what) -> {};

    void update(long done, long total, String what);
}

package org.jacap.simd;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed pool for data-parallel loops: {@code threads - 1} daemon workers plus the calling
 * thread. {@link #parallelFor} splits {@code [0, count)} into {@code threads} contiguous chunks
 * (chunk {@code i} starts at {@link #chunkStart chunkStart(count, threads, i)}, so the split depends
 * only on the count and the thread count), runs chunk 0 on the caller and blocks until all are done.
 *
 * <p>{@link #parallelForDynamic} instead hands out pieces of {@code grain} indices from a shared
 * counter, so a thread that the OS delays (two vCPUs shared with the JIT and the GC) does not hold
 * the others up; use it when each index's result does not depend on which thread computes it.
 *
 * <p>No allocation per call: the task is published through fields and a generation counter;
 * workers spin briefly on the counter (a matmul every few hundred microseconds keeps them warm)
 * and then park. One caller at a time; calling {@code parallelFor} from inside a task is an
 * error (it would deadlock), and is reported as such.
 */
public final class ThreadPool implements AutoCloseable {

    /** A chunk of a parallel loop: indices {@code [start, end)}, run by worker {@code worker}. */
    @FunctionalInterface
    public interface RangeTask {
        void run(int start, int end, int worker);
    }

    /** How long an idle thread spins before parking: long enough to bridge the gaps between matmuls. */
    private static final long SPIN_NANOS = 50_000L;

    private final int threads;
    private final Thread[] workers;
    private final AtomicReferenceArray<Thread> parked; // set while worker i+1 may be parked

    // Published by the caller before the generation bump (volatile write = release).
    private RangeTask task;
    private int count;
    private int grain; // 0: static split; else the piece size of a dynamic loop
    private final AtomicInteger next = new AtomicInteger();
    private volatile int generation;
    private volatile boolean closed;

    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger busy = new AtomicInteger();
    private volatile Thread waitingCaller;
    private volatile Throwable failure;

    public ThreadPool(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.threads = threads;
        this.workers = new Thread[threads - 1];
        this.parked = new AtomicReferenceArray<>(threads - 1);
        for (int i = 0; i < workers.length; i++) {
            final int worker = i + 1;
            Thread t = new Thread(() -> workerLoop(worker), "jacap-worker-" + worker);
            t.setDaemon(true);
            workers[i] = t;
        }
        for (Thread t : workers) {
            t.start();
        }
    }

    /** A pool sized to the machine's available processors. */
    public static ThreadPool ofAvailableProcessors() {
        return new ThreadPool(Runtime.getRuntime().availableProcessors());
    }

    /** Number of threads that run chunks, the caller included. */
    public int threads() {
        return threads;
    }

    /**
     * Start of chunk {@code worker} when {@code count} items are split over {@code parts} chunks:
     * {@code ceil(count*worker/parts)}, so chunk sizes differ by at most one and, when there are
     * fewer items than chunks, the first chunks (the caller's first) get them.
     */
    public static int chunkStart(int count, int parts, int worker) {
        return (int) (((long) count * worker + parts - 1) / parts);
    }

    /**
     * Runs {@code task} over {@code [0, count)} split into {@link #threads()} contiguous chunks
     * (empty chunks are skipped) and waits for all of them. The first exception thrown by any
     * chunk is rethrown here after every chunk has finished.
     */
    public void parallelFor(int count, RangeTask task) {
        run(count, 0, task);
    }

    /**
     * Runs {@code task} over {@code [0, count)} in pieces of {@code grain} indices (the last may be
     * shorter) that the threads take from a shared counter until none is left, and waits for all.
     * Which thread runs a piece varies from call to call; the pieces themselves do not.
     */
    public void parallelForDynamic(int count, int grain, RangeTask task) {
        if (grain < 1) {
            throw new IllegalArgumentException("grain must be >= 1, got " + grain);
        }
        run(count, grain, task);
    }

    private void run(int count, int grain, RangeTask task) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, got " + count);
        }
        if (closed) {
            throw new IllegalStateException("thread pool is closed");
        }
        if (count == 0) {
            return;
        }
        if (!busy.compareAndSet(0, 1)) {
            throw new IllegalStateException(
                    "parallelFor is not reentrant: called from inside a task or from two threads at once");
        }
        try {
            if (threads == 1 || count == 1 || (grain > 0 && grain >= count)) {
                task.run(0, count, 0);
                return;
            }
            this.task = task;
            this.count = count;
            this.grain = grain;
            next.set(0);
            this.failure = null;
            this.waitingCaller = Thread.currentThread();
            pending.set(threads - 1);
            generation = generation + 1; // publishes task/count
            for (int i = 0; i < workers.length; i++) {
                Thread p = parked.get(i);
                if (p != null) {
                    LockSupport.unpark(p);
                }
            }
            try {
                runChunk(task, count, 0);
            } catch (Throwable t) {
                recordFailure(t);
            }
            awaitWorkers();
            this.task = null;
            Throwable f = failure;
            if (f != null) {
                failure = null;
                if (f instanceof RuntimeException re) {
                    throw re;
                }
                if (f instanceof Error e) {
                    throw e;
                }
                throw new RuntimeException(f);
            }
        } finally {
            busy.set(0);
        }
    }

    private void runChunk(RangeTask task, int count, int worker) {
        int g = grain;
        if (g > 0) {
            for (int start; (start = next.getAndAdd(g)) < count; ) {
                task.run(start, Math.min(count, start + g), worker);
            }
            return;
        }
        int start = chunkStart(count, threads, worker);
        int end = chunkStart(count, threads, worker + 1);
        if (start < end) {
            task.run(start, end, worker);
        }
    }

    private void recordFailure(Throwable t) {
        synchronized (pending) {
            if (failure == null) {
                failure = t;
            } else if (failure != t) {
                failure.addSuppressed(t);
            }
        }
    }

    private void awaitWorkers() {
        long start = System.nanoTime();
        int spins = 0;
        while (pending.get() != 0) {
            if ((++spins & 63) != 0 || System.nanoTime() - start < SPIN_NANOS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, 50_000L);
            }
        }
    }

    private void workerLoop(int worker) {
        int seen = 0;
        while (true) {
            long start = System.nanoTime();
            int spins = 0;
            int g;
            while ((g = generation) == seen) {
                if (closed) {
                    return;
                }
                if ((++spins & 63) != 0 || System.nanoTime() - start < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    // Dekker with the caller: publish "parked", then re-check the generation.
                    parked.set(worker - 1, Thread.currentThread());
                    if (generation == seen && !closed) {
                        LockSupport.park(this);
                    }
                    parked.set(worker - 1, null);
                }
            }
            seen = g;
            if (closed) {
                return;
            }
            try {
                runChunk(task, count, worker);
            } catch (Throwable t) {
                recordFailure(t);
            }
            if (pending.decrementAndGet() == 0) {
                Thread caller = waitingCaller;
                if (caller != null) {
                    LockSupport.unpark(caller);
                }
            }
        }
    }

    /** Stops the workers. Idempotent; the pool cannot be used afterwards. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Thread t : workers) {
            LockSupport.unpark(t);
        }
        for (Thread t : workers) {
            try {
                t.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

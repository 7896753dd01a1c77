package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class ThreadPoolTest {

    @Test
    void everyIndexRunsExactlyOnceInContiguousDeterministicChunks() {
        for (int threads = 1; threads <= 4; threads++) {
            try (ThreadPool pool = new ThreadPool(threads)) {
                assertThat(pool.threads()).isEqualTo(threads);
                for (int count : new int[] {1, 2, 3, 5, 7, 64, 1000}) {
                    AtomicIntegerArray hits = new AtomicIntegerArray(count);
                    List<int[]> chunks = Collections.synchronizedList(new ArrayList<>());
                    pool.parallelFor(count, (s, e, w) -> {
                        chunks.add(new int[] {s, e, w});
                        for (int i = s; i < e; i++) {
                            hits.incrementAndGet(i);
                        }
                    });
                    for (int i = 0; i < count; i++) {
                        assertThat(hits.get(i))
                                .as("index %d of %d with %d threads", i, count, threads)
                                .isEqualTo(1);
                    }
                    for (int[] c : chunks) {
                        assertThat(c[0]).isEqualTo(ThreadPool.chunkStart(count, threads, c[2]));
                        assertThat(c[1]).isEqualTo(ThreadPool.chunkStart(count, threads, c[2] + 1));
                        assertThat(c[1]).isGreaterThan(c[0]);
                    }
                    int workers =
                            (int) chunks.stream().mapToInt(c -> c[2]).distinct().count();
                    assertThat(workers).isEqualTo(chunks.size());
                }
            }
        }
    }

    @Test
    void dynamicLoopRunsEveryIndexOnceInPiecesOfTheGrain() {
        try (ThreadPool pool = new ThreadPool(3)) {
            for (int count : new int[] {1, 2, 7, 100, 1001}) {
                for (int grain : new int[] {1, 3, 64, 5000}) {
                    AtomicIntegerArray hits = new AtomicIntegerArray(count);
                    java.util.Set<String> pieces = java.util.concurrent.ConcurrentHashMap.newKeySet();
                    pool.parallelForDynamic(count, grain, (start, end, worker) -> {
                        assertThat(worker).isBetween(0, 2);
                        assertThat(start % grain).isZero();
                        assertThat(end).isEqualTo(Math.min(count, start + grain));
                        pieces.add(start + ".." + end);
                        for (int i = start; i < end; i++) {
                            hits.incrementAndGet(i);
                        }
                    });
                    for (int i = 0; i < count; i++) {
                        assertThat(hits.get(i))
                                .as("count %d grain %d index %d", count, grain, i)
                                .isEqualTo(1);
                    }
                    assertThat(pieces).hasSize((count + grain - 1) / grain);
                }
            }
            assertThatThrownBy(() -> pool.parallelForDynamic(10, 0, (s, e, w) -> {}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("grain");
            assertThatThrownBy(() -> pool.parallelForDynamic(100, 1, (s, e, w) -> {
                        if (s == 57) {
                            throw new IllegalStateException("piece 57");
                        }
                    }))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("piece 57");
            int[] after = new int[1];
            pool.parallelFor(4, (s, e, w) -> {
                synchronized (after) {
                    after[0] += e - s;
                }
            });
            assertThat(after[0]).isEqualTo(4); // a static loop still works after a dynamic one
        }
    }

    @Test
    void workersReallyRunConcurrentlyOnDistinctThreads() {
        try (ThreadPool pool = new ThreadPool(3)) {
            List<String> names = Collections.synchronizedList(new ArrayList<>());
            pool.parallelFor(3, (s, e, w) -> names.add(Thread.currentThread().getName() + "#" + w));
            assertThat(names).hasSize(3);
            assertThat(names.stream().map(n -> n.substring(0, n.indexOf('#'))).distinct())
                    .hasSize(3);
            assertThat(names).anyMatch(n -> n.equals(Thread.currentThread().getName() + "#0"));
        }
    }

    @Test
    void manyCallsInARowKeepWorking() {
        try (ThreadPool pool = new ThreadPool(2)) {
            long[] sums = new long[2];
            AtomicInteger calls = new AtomicInteger();
            for (int rep = 0; rep < 20_000; rep++) {
                pool.parallelFor(10, (s, e, w) -> {
                    sums[w] += e - s;
                    calls.incrementAndGet();
                });
            }
            assertThat(sums[0] + sums[1]).isEqualTo(200_000);
            assertThat(calls.get()).isEqualTo(40_000);
        }
    }

    @Test
    void workerExceptionIsRethrownAfterAllChunksFinish() {
        try (ThreadPool pool = new ThreadPool(3)) {
            AtomicInteger finished = new AtomicInteger();
            IllegalStateException boom = new IllegalStateException("boom in worker");
            assertThatThrownBy(() -> pool.parallelFor(3, (s, e, w) -> {
                        if (w == 2) {
                            throw boom;
                        }
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException ex) {
                            throw new RuntimeException(ex);
                        }
                        finished.incrementAndGet();
                    }))
                    .isSameAs(boom);
            assertThat(finished.get()).isEqualTo(2);
            // the pool is still usable
            AtomicInteger n = new AtomicInteger();
            pool.parallelFor(6, (s, e, w) -> n.addAndGet(e - s));
            assertThat(n.get()).isEqualTo(6);
        }
    }

    @Test
    void callerExceptionIsRethrownToo() {
        try (ThreadPool pool = new ThreadPool(2)) {
            assertThatThrownBy(() -> pool.parallelFor(2, (s, e, w) -> {
                        if (w == 0) {
                            throw new ArithmeticException("caller chunk");
                        }
                    }))
                    .isInstanceOf(ArithmeticException.class)
                    .hasMessage("caller chunk");
        }
    }

    @Test
    void nestedCallsAreRefusedNotDeadlocked() {
        try (ThreadPool pool = new ThreadPool(2)) {
            assertThatThrownBy(() -> pool.parallelFor(2, (s, e, w) -> pool.parallelFor(2, (a, b, c) -> {})))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("reentrant");
        }
    }

    @Test
    void argumentsAndLifecycle() {
        assertThatThrownBy(() -> new ThreadPool(0)).isInstanceOf(IllegalArgumentException.class);
        ThreadPool pool = new ThreadPool(2);
        AtomicInteger n = new AtomicInteger();
        pool.parallelFor(0, (s, e, w) -> n.incrementAndGet());
        assertThat(n.get()).isZero();
        assertThatThrownBy(() -> pool.parallelFor(-1, (s, e, w) -> {})).isInstanceOf(IllegalArgumentException.class);
        pool.close();
        pool.close();
        assertThatThrownBy(() -> pool.parallelFor(1, (s, e, w) -> {})).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void idleWorkersParkAndWakeUp() throws InterruptedException {
        try (ThreadPool pool = new ThreadPool(2)) {
            AtomicInteger n = new AtomicInteger();
            pool.parallelFor(2, (s, e, w) -> n.incrementAndGet());
            Thread.sleep(30); // past the spin window: the worker parks
            pool.parallelFor(2, (s, e, w) -> n.incrementAndGet());
            assertThat(n.get()).isEqualTo(4);
        }
    }
}

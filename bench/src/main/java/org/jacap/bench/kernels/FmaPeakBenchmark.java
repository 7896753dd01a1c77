package org.jacap.bench.kernels;

import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.jacap.simd.ThreadPool;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Context for the matmul numbers: the machine's float FMA peak through the Vector API, twelve
 * independent 8-lane FMA chains per thread (enough to cover the latency of two FMA pipes), split
 * over the same thread pool. {@code flops} is the rate.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class FmaPeakBenchmark {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    /** FMA steps per chain and call: long enough that the pool's hand-off does not count. */
    private static final int STEPS = 1 << 20;

    private static final int CHAINS = 12;

    @Param({"1", "2"})
    public int threads;

    private ThreadPool pool;
    private float[] partial;
    private ThreadPool.RangeTask task;

    @Setup(Level.Trial)
    public void setUp() {
        pool = new ThreadPool(threads);
        partial = new float[threads * 16];
        task = (start, end, worker) -> partial[worker * 16] = chains(STEPS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
    }

    static float chains(int steps) {
        FloatVector m = FloatVector.broadcast(F, 0.999999f);
        FloatVector c = FloatVector.broadcast(F, 1e-7f);
        FloatVector a0 = FloatVector.broadcast(F, 1f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
        FloatVector a6 = a0, a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
        for (int i = 0; i < steps; i++) {
            a0 = a0.fma(m, c);
            a1 = a1.fma(m, c);
            a2 = a2.fma(m, c);
            a3 = a3.fma(m, c);
            a4 = a4.fma(m, c);
            a5 = a5.fma(m, c);
            a6 = a6.fma(m, c);
            a7 = a7.fma(m, c);
            a8 = a8.fma(m, c);
            a9 = a9.fma(m, c);
            a10 = a10.fma(m, c);
            a11 = a11.fma(m, c);
        }
        return a0.add(a1)
                .add(a2)
                .add(a3)
                .add(a4)
                .add(a5)
                .add(a6)
                .add(a7)
                .add(a8)
                .add(a9)
                .add(a10)
                .add(a11)
                .reduceLanes(VectorOperators.ADD);
    }

    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Rates {
        public long flops;
    }

    @Benchmark
    public float fma(Rates rates) {
        pool.parallelFor(threads, task);
        rates.flops += (long) threads * STEPS * CHAINS * F.length() * 2;
        float s = 0;
        for (int i = 0; i < threads; i++) {
            s += partial[i * 16];
        }
        return s;
    }
}

package org.jacap.bench.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
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
 * Context for the matvec numbers: how fast this machine streams memory into vector registers
 * (a float sum over a segment much larger than the caches), split over the same thread pool.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx8g"})
public class MemoryBandwidthBenchmark {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;

    @Param({"256"})
    public int megabytes;

    @Param({"1", "2"})
    public int threads;

    private Arena arena;
    private MemorySegment seg;
    private ThreadPool pool;
    private float[] partial;
    private ThreadPool.RangeTask task;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        seg = arena.allocate((long) megabytes << 20, 64);
        for (long i = 0; i < seg.byteSize(); i += 4096) {
            seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        pool = new ThreadPool(threads);
        partial = new float[threads * 16];
        task = (start, end, worker) -> partial[worker * 16] = sum(seg, start * 4096L, end * 4096L);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
        arena.close();
    }

    static float sum(MemorySegment seg, long from, long to) {
        FloatVector a = FloatVector.zero(F);
        FloatVector b = FloatVector.zero(F);
        FloatVector c = FloatVector.zero(F);
        FloatVector d = FloatVector.zero(F);
        for (long i = from; i < to; i += 128) {
            a = a.add(FloatVector.fromMemorySegment(F, seg, i, ByteOrder.LITTLE_ENDIAN));
            b = b.add(FloatVector.fromMemorySegment(F, seg, i + 32, ByteOrder.LITTLE_ENDIAN));
            c = c.add(FloatVector.fromMemorySegment(F, seg, i + 64, ByteOrder.LITTLE_ENDIAN));
            d = d.add(FloatVector.fromMemorySegment(F, seg, i + 96, ByteOrder.LITTLE_ENDIAN));
        }
        return a.add(b).add(c.add(d)).reduceLanes(VectorOperators.ADD);
    }

    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Rates {
        public long bytes;
    }

    @Benchmark
    public float read(Rates rates) {
        pool.parallelFor((int) (seg.byteSize() / 4096), task);
        rates.bytes += seg.byteSize();
        float s = 0;
        for (int i = 0; i < threads; i++) {
            s += partial[i * 16];
        }
        return s;
    }
}

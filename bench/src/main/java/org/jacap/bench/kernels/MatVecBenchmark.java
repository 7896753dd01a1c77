package org.jacap.bench.kernels;

import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.jacap.gguf.GgmlType;
import org.jacap.simd.Interleaving;
import org.jacap.simd.MatMul;
import org.jacap.simd.Precision;
import org.jacap.simd.ThreadPool;
import org.jacap.simd.WeightMatrix;
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
 * Decode: matrix x vector (batch 1), NATIVE precision, vector kernels against their scalar
 * twins. The {@code weightBytes} counter is the weight-read bandwidth (bytes/s), {@code flops}
 * the arithmetic rate.
 *
 * <pre>java -jar bench/target/benchmarks.jar MatVecBenchmark -p type=Q8_0,Q4_0</pre>
 * <pre>java -jar bench/target/benchmarks.jar MatVecBenchmark -p type=Q4_K -p layout=repacked,stored -p shape=2048x2048 -p threads=1 -p impl=vector</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx8g"})
public class MatVecBenchmark {

    @Param({"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "Q8_K"
    })
    public String type;

    /**
     * rows x cols (outputs x input width). 32768x2048 is larger than a 32 MiB L3 for every type of
     * 4 bits or more (Q8_0 68 MiB, Q4_0 36 MiB), so it streams from memory like a real decode.
     */
    @Param({"2048x2048", "8192x2048", "32768x2048"})
    public String shape;

    @Param({"1", "2"})
    public int threads;

    @Param({"vector", "scalar"})
    public String impl;

    /** {@code repacked}: as a model loads it (Q4_K, Q6_K, Q4_0, Q4_1, Q8_0: 32 rows side by side, {@link Interleaving}); {@code stored}: the file's layout. */
    @Param({"repacked", "stored"})
    public String layout;

    private Arena arena;
    private ThreadPool pool;
    private MatMul mm;
    private WeightMatrix w;
    private float[] x;
    private float[] out;

    @Setup(Level.Trial)
    public void setUp() {
        int[] s = RandomWeights.shape(shape);
        arena = Arena.ofShared();
        w = RandomWeights.matrix(GgmlType.valueOf(type), s[0], s[1], 42, arena);
        if (layout.equals("repacked")) {
            w = Interleaving.interleave(w);
        }
        x = RandomWeights.activations(s[1], 7);
        out = new float[s[0]];
        pool = new ThreadPool(threads);
        mm = impl.equals("vector") ? new MatMul(pool, Precision.NATIVE) : MatMul.scalarTwin(pool, Precision.NATIVE);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
        arena.close();
    }

    /** Rates JMH reports per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Rates {
        public long weightBytes;
        public long flops;
    }

    @Benchmark
    public float matvec(Rates rates) {
        mm.multiply(w, x, 0, 1, out, 0);
        rates.weightBytes += w.data().byteSize();
        rates.flops += 2L * w.rows() * w.cols();
        return out[0];
    }
}

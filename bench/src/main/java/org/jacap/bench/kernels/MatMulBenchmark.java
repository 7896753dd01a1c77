package org.jacap.bench.kernels;

import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.jacap.gguf.GgmlType;
import org.jacap.simd.Interleaving;
import org.jacap.simd.MatMul;
import org.jacap.simd.Precision;
import org.jacap.simd.ThreadPool;
import org.jacap.simd.WeightMatrix;
import org.jacap.simd.Widening;
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
 * Prefill: matrix x matrix (a batch of tokens), NATIVE precision. {@code flops} counts
 * 2·rows·cols·batch per call (GFLOP/s), {@code tokens} the tokens pushed through this matrix.
 * With {@code layout=repacked} (as a model loads Q4_K, Q6_K, Q4_0, Q4_1, Q8_0, and Q5_0 widened to
 * a narrow Q8_0) a 512-bit machine prefills from the copy: Q4_0, Q4_K and the widened Q5_0 on 16-bit
 * integer lanes, the others through the float tile.
 *
 * <pre>java -jar bench/target/benchmarks.jar MatMulBenchmark -p type=Q4_0,Q4_K -p layout=repacked,stored -p batch=128 -p threads=1</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx8g"})
public class MatMulBenchmark {

    @Param({"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "Q8_K"
    })
    public String type;

    @Param({"2048x2048"})
    public String shape;

    @Param({"32", "128"})
    public int batch;

    @Param({"1", "2"})
    public int threads;

    @Param({"NATIVE"})
    public String precision;

    /** {@code repacked}: as a model loads it ({@link Interleaving}); {@code stored}: the file's layout. */
    @Param({"repacked", "stored"})
    public String layout;

    /** {@code vector}: the kernels; {@code scalar}: their scalar twins ({@link MatMul#scalarTwin}). */
    @Param({"vector"})
    public String impl;

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
            w = Interleaving.interleave(Widening.widen(w)); // Q5_0 becomes a narrow Q8_0 first, as a model loads
        }
        x = RandomWeights.activations(batch * s[1], 7);
        out = new float[batch * s[0]];
        pool = new ThreadPool(threads);
        mm = impl.equals("vector")
                ? new MatMul(pool, Precision.valueOf(precision))
                : MatMul.scalarTwin(pool, Precision.valueOf(precision));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
        arena.close();
    }

    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Rates {
        public long flops;
        public long tokens;
    }

    @Benchmark
    public float matmul(Rates rates) {
        mm.multiply(w, x, 0, batch, out, 0);
        rates.flops += 2L * w.rows() * w.cols() * batch;
        rates.tokens += batch;
        return out[0];
    }
}

package org.jacap.bench.kernels;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.jacap.simd.Activations;
import org.jacap.simd.Attention;
import org.jacap.simd.HalfFloats;
import org.jacap.simd.HalfOnlineAttention;
import org.jacap.simd.RmsNorm;
import org.jacap.simd.Rope;
import org.jacap.simd.RopeLayout;
import org.jacap.simd.ScalarOps;
import org.jacap.simd.Softmax;
import org.jacap.simd.VectorOps;
import org.jacap.simd.VectorSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Transformer primitives, each vector kernel next to its scalar twin ({@code *Vector} /
 * {@code *Scalar}). Vectors of n = 4096 floats (a 3B-model hidden size); attention over 1024 cached
 * keys with head dimension 64 and 128 (exact, and llama.cpp's F16-accumulator form); RoPE over 32
 * heads of 128.
 *
 * <pre>
 * ./mvnw -B -q -P jmh -pl bench -am package -DskipTests
 * java --add-modules jdk.incubator.vector -jar bench/target/benchmarks.jar PrimitivesBench -f 1 -wi 2 -i 3
 * </pre>
 * In-place kernels whose repeated application would drift (activations) copy their input first;
 * {@link #copyBaseline} measures that copy.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
@State(Scope.Thread)
public class PrimitivesBench {

    static final int N = 4096;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    float[] a;
    float[] b;
    float[] w;
    float[] src;
    float[] work;
    float[] out;
    float[] logits;

    @Setup
    public void setUp() {
        System.err.println(VectorSupport.describe());
        VectorSupport.warning().ifPresent(System.err::println);
        Random rnd = new Random(42);
        a = random(rnd, N, 1f);
        b = random(rnd, N, 1f);
        w = random(rnd, N, 1f);
        src = random(rnd, N, 6f);
        work = new float[N];
        out = new float[N];
        logits = random(rnd, N, 10f);
    }

    static float[] random(Random rnd, int n, float scale) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (rnd.nextFloat() * 2 - 1) * scale;
        }
        return x;
    }

    // ------------------------------------------------------------ level 1

    @Benchmark
    public float dotVector() {
        return VectorOps.dot(a, 0, b, 0, N);
    }

    @Benchmark
    public float dotScalar() {
        return ScalarOps.dot(a, 0, b, 0, N);
    }

    @Benchmark
    public double sumOfSquaresVector() {
        return VectorOps.sumOfSquares(a, 0, N);
    }

    @Benchmark
    public double sumOfSquaresScalar() {
        return ScalarOps.sumOfSquares(a, 0, N);
    }

    @Benchmark
    public float[] axpyVector() {
        VectorOps.axpy(1e-7f, a, 0, out, 0, N);
        return out;
    }

    @Benchmark
    public float[] axpyScalar() {
        ScalarOps.axpy(1e-7f, a, 0, out, 0, N);
        return out;
    }

    // ------------------------------------------------------------ norms and softmax

    @Benchmark
    public float[] rmsNormVector() {
        RmsNorm.apply(a, 0, w, 0, N, 1e-5f, out, 0);
        return out;
    }

    @Benchmark
    public float[] rmsNormScalar() {
        RmsNorm.applyScalar(a, 0, w, 0, N, 1e-5f, out, 0);
        return out;
    }

    @Benchmark
    public float[] softmaxVector() {
        System.arraycopy(logits, 0, work, 0, N);
        Softmax.inPlace(work, 0, N);
        return work;
    }

    @Benchmark
    public float[] softmaxScalar() {
        System.arraycopy(logits, 0, work, 0, N);
        Softmax.inPlaceScalar(work, 0, N);
        return work;
    }

    // ------------------------------------------------------------ activations

    @Benchmark
    public float[] copyBaseline() {
        System.arraycopy(src, 0, work, 0, N);
        return work;
    }

    @Benchmark
    public float[] siluVector() {
        System.arraycopy(src, 0, work, 0, N);
        Activations.silu(work, 0, N);
        return work;
    }

    @Benchmark
    public float[] siluScalar() {
        System.arraycopy(src, 0, work, 0, N);
        Activations.siluScalar(work, 0, N);
        return work;
    }

    /** The same SiLU with the Vector API's own EXP operator (SVML intrinsic on x64 Linux/Windows). */
    @Benchmark
    public float[] siluVectorApiExp() {
        System.arraycopy(src, 0, work, 0, N);
        int i = 0;
        for (; i < F.loopBound(N); i += F.length()) {
            FloatVector v = FloatVector.fromArray(F, work, i);
            v.div(v.neg().lanewise(VectorOperators.EXP).add(1f)).intoArray(work, i);
        }
        return work;
    }

    @Benchmark
    public float[] swigluVector() {
        System.arraycopy(src, 0, work, 0, N);
        Activations.swiglu(work, 0, b, 0, N);
        return work;
    }

    @Benchmark
    public float[] swigluScalar() {
        System.arraycopy(src, 0, work, 0, N);
        Activations.swigluScalar(work, 0, b, 0, N);
        return work;
    }

    @Benchmark
    public float[] geluVector() {
        System.arraycopy(src, 0, work, 0, N);
        Activations.gelu(work, 0, N);
        return work;
    }

    @Benchmark
    public float[] geluScalar() {
        System.arraycopy(src, 0, work, 0, N);
        Activations.geluScalar(work, 0, N);
        return work;
    }

    // ------------------------------------------------------------ RoPE

    /** 32 heads of 128 channels (one Llama-style Q row), rotated at position 1234. */
    @State(Scope.Thread)
    public static class RopeState {
        @Param({"NORMAL", "NEOX"})
        public RopeLayout layout;

        Rope rope;
        float[] q;
        float[] table;

        @Setup
        public void setUp() {
            rope = new Rope(128, 128, 500000.0, null, layout);
            q = random(new Random(7), 32 * 128, 1f);
            table = rope.newTable();
            rope.fillTable(1234, table);
        }
    }

    @Benchmark
    public float[] ropeRotateVector(RopeState s) {
        s.rope.rotate(s.q, 0, 32, s.table);
        return s.q;
    }

    @Benchmark
    public float[] ropeRotateScalar(RopeState s) {
        s.rope.rotateScalar(s.q, 0, 32, s.table);
        return s.q;
    }

    /** The table itself: 64 sin/cos pairs in double, once per token (shared by all layers). */
    @Benchmark
    public float[] ropeFillTable(RopeState s) {
        s.rope.fillTable(1234, s.table);
        return s.table;
    }

    /** Self-contained exact path: cos/sin in double on every call. */
    @Benchmark
    public float[] ropeApplyExact(RopeState s) {
        s.rope.apply(s.q, 0, 32, 1234);
        return s.q;
    }

    // ------------------------------------------------------------ attention

    /** One head attending over {@code keys} cached positions (past 1,024 the F16 path folds chunks of 1,024). */
    @State(Scope.Thread)
    public static class HeadState {
        @Param({"1024", "4096"})
        public int keys;

        @Param({"64", "128"})
        public int d;

        float[] q;
        float[] keyRows;
        float[] values;
        float[] scores;
        float[] out;
        float scale;

        @Setup
        public void setUp() {
            Random rnd = new Random(11);
            q = random(rnd, d, 1f);
            keyRows = random(rnd, keys * d, 1f);
            values = random(rnd, keys * d, 1f);
            scores = random(rnd, keys, 1f);
            Softmax.inPlace(scores, 0, keys);
            out = new float[d];
            scale = (float) (1 / Math.sqrt(d));
            halfKeys = keyRows.clone();
            halfValues = values.clone();
            HalfFloats.roundToF16(halfKeys, 0, halfKeys.length);
            HalfFloats.roundToF16(halfValues, 0, halfValues.length);
            halfState = new float[HalfOnlineAttention.stateSize(d, d)];
        }

        float[] halfKeys;
        float[] halfValues;
        float[] halfState;
    }

    @Benchmark
    public float[] attentionScoresVector(HeadState s) {
        Attention.scores(s.q, 0, s.keyRows, 0, s.keys, s.d, s.scale, s.scores, 0);
        return s.scores;
    }

    @Benchmark
    public float[] attentionScoresScalar(HeadState s) {
        Attention.scoresScalar(s.q, 0, s.keyRows, 0, s.keys, s.d, s.scale, s.scores, 0);
        return s.scores;
    }

    @Benchmark
    public float[] attentionAccumulateVector(HeadState s) {
        Attention.accumulate(s.scores, 0, s.values, 0, s.keys, s.d, s.out, 0);
        return s.out;
    }

    @Benchmark
    public float[] attentionAccumulateScalar(HeadState s) {
        Attention.accumulateScalar(s.scores, 0, s.values, 0, s.keys, s.d, s.out, 0);
        return s.out;
    }

    /** llama.cpp's decode attention over an F16 cache (the accumulator rounded to F16), the whole row set. */
    @Benchmark
    public float[] halfOnlineAttentionVector(HeadState s) {
        HalfOnlineAttention.attend(
                s.q, 0, s.halfKeys, 0, s.halfValues, 0, s.keys, s.d, s.d, s.scale, s.halfState, s.out, 0);
        return s.out;
    }

    @Benchmark
    public float[] halfOnlineAttentionScalar(HeadState s) {
        HalfOnlineAttention.attendScalar(
                s.q, 0, s.halfKeys, 0, s.halfValues, 0, s.keys, s.d, s.d, s.scale, s.halfState, s.out, 0);
        return s.out;
    }

    /**
     * One KV head's query heads over an F16 cache as decoding visits it: tiles of 64 rows, all
     * heads together ({@code heads} 3: SmolLM2's group, 4: Gemma 3's). The value bound is each
     * tile's own (decoding takes the KV cache's running one, which is never smaller).
     */
    @State(Scope.Thread)
    public static class GroupState {
        @Param({"1", "3", "4"})
        public int heads;

        @Param({"64"})
        public int d;

        static final int KEYS = 4096;
        static final int TILE = 64;

        float[] q;
        float[] keyRows;
        float[] values;
        float[] state;
        float[] out;
        float scale;

        @Setup
        public void setUp() {
            Random rnd = new Random(17);
            q = random(rnd, heads * d, 1f);
            keyRows = random(rnd, KEYS * d, 1f);
            values = random(rnd, KEYS * d, 1f);
            HalfFloats.roundToF16(keyRows, 0, keyRows.length);
            HalfFloats.roundToF16(values, 0, values.length);
            state = new float[heads * HalfOnlineAttention.stateSize(d, d)];
            out = new float[heads * d];
            scale = (float) (1 / Math.sqrt(d));
        }
    }

    /** The heads of one KV head over 4,096 rows in tiles, as {@code HalfCacheAttention} decodes. */
    @Benchmark
    public float[] halfOnlineAttentionHeads(GroupState s) {
        int size = HalfOnlineAttention.stateSize(s.d, s.d);
        for (int h = 0; h < s.heads; h++) {
            HalfOnlineAttention.begin(s.q, h * s.d, s.d, s.d, s.state, h * size);
        }
        for (int r = 0; r < GroupState.KEYS; r += GroupState.TILE) {
            int off = r * s.d;
            float bound = HalfOnlineAttention.largestMagnitude(s.values, off, GroupState.TILE * s.d);
            HalfOnlineAttention.updateHeads(
                    s.state, 0, s.heads, s.d, s.d, s.keyRows, off, s.values, off, GroupState.TILE, s.scale, bound);
        }
        for (int h = 0; h < s.heads; h++) {
            HalfOnlineAttention.finish(s.state, h * size, s.d, s.d, s.out, h * s.d);
        }
        return s.out;
    }

    // ------------------------------------------------------------ eviction: capacity matrix

    /** A += Σ w_i v_i v_iᵀ (upper triangle) for 256 value rows of width 128 — leverage scoring. */
    @State(Scope.Thread)
    public static class CapacityState {
        static final int M = 256;
        static final int D = 128;

        double[] v;
        double[] weights;
        double[] a;

        @Setup
        public void setUp() {
            Random rnd = new Random(13);
            v = new double[M * D];
            weights = new double[M];
            for (int i = 0; i < v.length; i++) {
                v[i] = rnd.nextGaussian();
            }
            for (int i = 0; i < M; i++) {
                weights[i] = rnd.nextDouble() * 1e-6;
            }
            a = new double[D * D];
        }
    }

    @Benchmark
    public double[] capacitySyrkVector(CapacityState s) {
        VectorOps.syrkUpper(s.weights, 0, s.v, 0, CapacityState.M, CapacityState.D, s.a);
        return s.a;
    }

    @Benchmark
    public double[] capacitySyrRank1Vector(CapacityState s) {
        for (int i = 0; i < CapacityState.M; i++) {
            VectorOps.syrUpper(s.weights[i], s.v, i * CapacityState.D, s.a, CapacityState.D);
        }
        return s.a;
    }

    @Benchmark
    public double[] capacitySyrkScalar(CapacityState s) {
        ScalarOps.syrkUpper(s.weights, 0, s.v, 0, CapacityState.M, CapacityState.D, s.a);
        return s.a;
    }
}

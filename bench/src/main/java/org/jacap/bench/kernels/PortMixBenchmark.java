package org.jacap.bench.kernels;

import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Whether the core issues float FMAs and 16-bit integer multiply-adds side by side: one thread,
 * twelve independent chains at the CPU's preferred width, all float FMAs ({@code fma}), all 16-bit
 * multiply-then-add ({@code mac16}, the integer prefill tiles' inner step; the multiply sits in
 * the chain because with constant operands C2 would hoist it out of the loop) or six of each
 * interleaved ({@code mixed}). The chains repeat {@link FmaPeakBenchmark}'s at this class's width:
 * the Vector API compiles a loop to vector instructions only where its species is a constant.
 * {@code macs} counts one multiply-add per lane. If {@code mixed} beats both pure forms, a prefill
 * tile that gives some rows to each unit would gain; if it sits between them, the two share a pipe.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class PortMixBenchmark {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Short> S = ShortVector.SPECIES_PREFERRED;
    /** Steps per chain and call. */
    private static final int STEPS = 1 << 18;

    @Param({"fma", "mac16", "mixed"})
    public String mode;

    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Rates {
        public long macs;
    }

    @Benchmark
    public float run(Rates rates) {
        switch (mode) {
            case "fma" -> {
                rates.macs += (long) STEPS * 12 * F.length();
                return fma(STEPS);
            }
            case "mac16" -> {
                rates.macs += (long) STEPS * 12 * S.length();
                return mac16(STEPS);
            }
            default -> {
                rates.macs += (long) STEPS * 6 * (F.length() + S.length());
                return mixed(STEPS);
            }
        }
    }

    static float fma(int steps) {
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

    static float mac16(int steps) {
        ShortVector x = ShortVector.broadcast(S, (short) 3);
        ShortVector w = ShortVector.broadcast(S, (short) 5);
        ShortVector c0 = ShortVector.zero(S), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
        ShortVector c6 = c0, c7 = c0, c8 = c0, c9 = c0, c10 = c0, c11 = c0;
        for (int i = 0; i < steps; i++) {
            c0 = c0.mul(w).add(x);
            c1 = c1.mul(w).add(x);
            c2 = c2.mul(w).add(x);
            c3 = c3.mul(w).add(x);
            c4 = c4.mul(w).add(x);
            c5 = c5.mul(w).add(x);
            c6 = c6.mul(w).add(x);
            c7 = c7.mul(w).add(x);
            c8 = c8.mul(w).add(x);
            c9 = c9.mul(w).add(x);
            c10 = c10.mul(w).add(x);
            c11 = c11.mul(w).add(x);
        }
        return c0.add(c1)
                .add(c2)
                .add(c3)
                .add(c4)
                .add(c5)
                .add(c6)
                .add(c7)
                .add(c8)
                .add(c9)
                .add(c10)
                .add(c11)
                .reduceLanes(VectorOperators.ADD);
    }

    static float mixed(int steps) {
        FloatVector m = FloatVector.broadcast(F, 0.999999f);
        FloatVector c = FloatVector.broadcast(F, 1e-7f);
        FloatVector a0 = FloatVector.broadcast(F, 1f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
        ShortVector x = ShortVector.broadcast(S, (short) 3);
        ShortVector w = ShortVector.broadcast(S, (short) 5);
        ShortVector c0 = ShortVector.zero(S), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
        for (int i = 0; i < steps; i++) {
            a0 = a0.fma(m, c);
            c0 = c0.mul(w).add(x);
            a1 = a1.fma(m, c);
            c1 = c1.mul(w).add(x);
            a2 = a2.fma(m, c);
            c2 = c2.mul(w).add(x);
            a3 = a3.fma(m, c);
            c3 = c3.mul(w).add(x);
            a4 = a4.fma(m, c);
            c4 = c4.mul(w).add(x);
            a5 = a5.fma(m, c);
            c5 = c5.mul(w).add(x);
        }
        return a0.add(a1).add(a2).add(a3).add(a4).add(a5).reduceLanes(VectorOperators.ADD)
                + c0.add(c1).add(c2).add(c3).add(c4).add(c5).reduceLanes(VectorOperators.ADD);
    }
}

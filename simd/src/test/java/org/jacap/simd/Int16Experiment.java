package org.jacap.simd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import org.jacap.gguf.GgmlType;

/**
 * Tuning experiment (not a test): Q8_0 x Q8_0 matvec with integer products in 16-bit lanes
 * (activations pre-quantized to int8 and widened to short[]), against the float-widening fused
 * kernel. Prints Gweights/s of caller CPU time, single thread.
 */
final class Int16Experiment {
    static float dotInt16(MemorySegment src, long offset, short[] xq, float[] xd, int count) {
        FloatVector acc = FloatVector.zero(FloatVector.SPECIES_256);
        for (int b = 0, blocks = count / 32; b < blocks; b++) {
            long o = offset + (long) b * 34;
            float d = HalfFloats.f16ToFloat(src.get(Layouts.SHORT, o)) * xd[b];
            ByteVector w0 = ByteVector.fromMemorySegment(ByteVector.SPECIES_128, src, o + 2, ByteOrder.LITTLE_ENDIAN);
            ByteVector w1 = ByteVector.fromMemorySegment(ByteVector.SPECIES_128, src, o + 18, ByteOrder.LITTLE_ENDIAN);
            ShortVector a = (ShortVector) w0.convertShape(VectorOperators.B2S, ShortVector.SPECIES_256, 0);
            ShortVector c = (ShortVector) w1.convertShape(VectorOperators.B2S, ShortVector.SPECIES_256, 0);
            ShortVector p = a.mul(ShortVector.fromArray(ShortVector.SPECIES_256, xq, 32 * b))
                    .add(c.mul(ShortVector.fromArray(ShortVector.SPECIES_256, xq, 32 * b + 16)));
            IntVector s = ((IntVector) p.convertShape(VectorOperators.S2I, IntVector.SPECIES_256, 0))
                    .add((IntVector) p.convertShape(VectorOperators.S2I, IntVector.SPECIES_256, 1));
            acc = ((FloatVector) s.convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(FloatVector.SPECIES_256, d), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD);
    }

    public static void main(String[] args) {
        int rows = 8192, cols = 2048;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment heap = Blocks.random(GgmlType.Q8_0, rows * cols, 1);
            MemorySegment seg = arena.allocate(heap.byteSize(), 64);
            seg.copyFrom(heap);
            float[] x = Blocks.gaussian(cols, 3, 1f);
            VecDotType.Q8_0.round(x, 0, x, 0, cols);
            // the same activations as int8 + scale
            byte[] q = Quantize.toBytes(GgmlType.Q8_0, x); // re-quantizing rounded values is exact
            short[] xq = new short[cols];
            float[] xd = new float[cols / 32];
            MemorySegment qs = MemorySegment.ofArray(q);
            for (int b = 0; b < cols / 32; b++) {
                xd[b] = HalfFloats.f16ToFloat(qs.get(Layouts.SHORT, 34L * b));
                for (int j = 0; j < 32; j++) {
                    xq[32 * b + j] = qs.get(Layouts.BYTE, 34L * b + 2 + j);
                }
            }
            TypeKernel k = Kernels.of(GgmlType.Q8_0);
            float[] out = new float[rows];
            float[] out2 = new float[rows];
            DotScratch scratch = new DotScratch();
            long rowBytes = 34L * cols / 32;
            for (String mode : new String[] {"float", "int16", "float", "int16"}) {
                double best = 1e9;
                for (int rep = 0; rep < 150; rep++) {
                    long c0 = mx.getCurrentThreadCpuTime();
                    for (int r = 0; r < rows; r++) {
                        if (mode.equals("float")) {
                            out[r] = k.dot(seg, r * rowBytes, x, 0, cols, scratch);
                        } else {
                            out2[r] = dotInt16(seg, r * rowBytes, xq, xd, cols);
                        }
                    }
                    best = Math.min(best, (mx.getCurrentThreadCpuTime() - c0) * 1e-9);
                }
                System.out.printf("Q8_0 matvec %s: %.3f ms cpu, %.2f Gweights/s%n", mode, best * 1e3, (double) rows * cols / best * 1e-9);
            }
            double maxRel = 0;
            for (int r = 0; r < rows; r++) {
                maxRel = Math.max(maxRel, Math.abs(out[r] - out2[r]) / (Math.abs(out[r]) + 1e-3));
            }
            System.out.println("max relative difference float vs int16: " + maxRel);
        }
    }
}

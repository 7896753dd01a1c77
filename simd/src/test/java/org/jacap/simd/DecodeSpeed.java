package org.jacap.simd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.jacap.gguf.GgmlType;

/** Tuning aid: fused dot ("dot") and decode-only ("decode") throughput, single thread, CPU time. */
final class DecodeSpeed {
    public static void main(String[] args) {
        GgmlType type = GgmlType.valueOf(args[0]);
        String what = args[1];
        int rows = 8192, cols = 2048;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment heap = Blocks.random(type, rows * cols, 1);
            MemorySegment seg = arena.allocate(heap.byteSize(), 64);
            seg.copyFrom(heap);
            TypeKernel k = Kernels.of(type);
            long rowBytes = type.bytesFor(cols);
            float[] wb = new float[4 * 1024];
            DotScratch scratch = new DotScratch();
            float[] x = Blocks.gaussian(cols, 3, 1f);
            float[] out = new float[rows];
            double best = 1e9;
            float sink = 0;
            for (int rep = 0; rep < 200; rep++) {
                long c0 = mx.getCurrentThreadCpuTime();
                if (what.equals("dot") || what.equals("dotarray")) {
                    for (int r = 0; r < rows; r++) {
                        out[r] = k.dot(seg, r * rowBytes, x, 0, cols, scratch);
                    }
                }
                for (int r = 0; r < rows && !what.startsWith("dot"); r += 4) {
                    for (int k0 = 0; k0 < cols; k0 += 1024) {
                        for (int i = 0; i < 4; i++) {
                            k.dequantize(seg, (r + i) * rowBytes + type.bytesFor(k0), wb, i * 1024, 1024);
                        }
                    }
                }
                sink += out[5] + wb[7];
                best = Math.min(best, (mx.getCurrentThreadCpuTime() - c0) * 1e-9);
            }
            System.out.printf(
                    "%s %s: %.3f ms cpu, %.2f Gweights/s%s%n",
                    type, what, best * 1e3, (double) rows * cols / best * 1e-9, sink == 12345 ? "!" : "");
        }
    }
}

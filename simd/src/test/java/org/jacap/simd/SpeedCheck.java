package org.jacap.simd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jacap.gguf.GgmlType;

/** Quick main-method timing used while tuning (JMH in module bench is the real measurement). */
final class SpeedCheck {
    public static void main(String[] args) {
        GgmlType type = GgmlType.valueOf(args.length > 0 ? args[0] : "Q4_0");
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        int rows = args.length > 3 ? Integer.parseInt(args[3]) : 8192;
        int cols = args.length > 4 ? Integer.parseInt(args[4]) : 2048;
        String mode = args.length > 5 ? args[5] : "vector";
        Precision p = args.length > 6 ? Precision.valueOf(args[6]) : Precision.NATIVE;
        try (Arena arena = Arena.ofShared();
                ThreadPool pool = new ThreadPool(threads)) {
            MemorySegment heap = Blocks.random(type, rows * cols, 1);
            MemorySegment seg = arena.allocate(heap.byteSize(), 64);
            seg.copyFrom(heap);
            WeightMatrix w = WeightMatrix.of(seg, type, rows, cols);
            MatMul mm = mode.equals("scalar")
                    ? MatMul.scalarTwin(pool, p)
                    : new MatMul(
                            pool,
                            p,
                            true,
                            Integer.getInteger("kc", 1024),
                            Integer.getInteger("tb", 48),
                            Integer.getInteger("panel", MatMul.PANEL_BYTES));
            float[] x = Blocks.gaussian(batch * cols, 2, 1f);
            float[] out = new float[batch * rows];
            long flops = 2L * rows * cols * batch;
            double best = Double.MAX_VALUE;
            double bestCpu = Double.MAX_VALUE;
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long deadline = System.nanoTime() + 8_000_000_000L;
            int iters = 0;
            long start = System.nanoTime();
            while (System.nanoTime() < deadline || iters < 3) {
                long c0 = mx.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                mm.multiply(w, x, 0, batch, out, 0);
                double dt = (System.nanoTime() - t0) * 1e-9;
                best = Math.min(best, dt);
                bestCpu = Math.min(bestCpu, (mx.getCurrentThreadCpuTime() - c0) * 1e-9);
                iters++;
            }
            double mean = (System.nanoTime() - start) * 1e-9 / iters;
            System.out.printf(
                    "%s %s %s threads=%d batch=%d %dx%d: mean %.2f GFLOP/s; best %.3f ms, %.2f GFLOP/s, %.2f GB/s weights, %d iters;"
                            + " caller cpu %.3f ms = %.2f GFLOP/s %.2f GB/s%n",
                    type,
                    mode,
                    p,
                    threads,
                    batch,
                    rows,
                    cols,
                    flops / mean * 1e-9,
                    best * 1e3,
                    flops / best * 1e-9,
                    w.data().byteSize() / best * 1e-9,
                    iters,
                    bestCpu * 1e3,
                    flops / bestCpu * 1e-9 / threads,
                    w.data().byteSize() / bestCpu * 1e-9 / threads);
        }
    }
}

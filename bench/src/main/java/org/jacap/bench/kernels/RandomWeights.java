package org.jacap.bench.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.jacap.gguf.GgmlType;
import org.jacap.simd.Quantize;
import org.jacap.simd.WeightMatrix;

/** Llama-shaped random weights, quantized with the reference quantizers (so scales are realistic). */
final class RandomWeights {
    private RandomWeights() {}

    /** A {@code rows x cols} matrix of N(0, 0.02) weights stored as {@code type} in native memory. */
    static WeightMatrix matrix(GgmlType type, int rows, int cols, long seed, Arena arena) {
        Random rnd = new Random(seed);
        long rowBytes = type.bytesFor(cols);
        MemorySegment seg = arena.allocate(rowBytes * rows, 64);
        float[] row = new float[cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                row[c] = (float) rnd.nextGaussian() * 0.02f;
            }
            Quantize.row(type, row, 0, cols, seg, r * rowBytes);
        }
        return WeightMatrix.of(seg, type, rows, cols);
    }

    static float[] activations(int n, long seed) {
        Random rnd = new Random(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) rnd.nextGaussian();
        }
        return x;
    }

    /** "8192x2048" to {rows, cols}. */
    static int[] shape(String s) {
        String[] p = s.split("x");
        return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
    }
}

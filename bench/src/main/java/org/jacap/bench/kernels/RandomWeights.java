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

    /**
     * A {@code rows x cols} matrix of N(0, 0.02) weights stored as {@code type} in native memory.
     * Q2_K and Q3_K have no quantizer: their blocks are random bytes with a fixed f16 scale,
     * which is all a speed measurement needs.
     */
    static WeightMatrix matrix(GgmlType type, int rows, int cols, long seed, Arena arena) {
        Random rnd = new Random(seed);
        long rowBytes = type.bytesFor(cols);
        MemorySegment seg = arena.allocate(rowBytes * rows, 64);
        if (!Quantize.supports(type)) {
            return randomBlocks(type, rows, cols, rnd, seg);
        }
        float[] row = new float[cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                row[c] = (float) rnd.nextGaussian() * 0.02f;
            }
            Quantize.row(type, row, 0, cols, seg, r * rowBytes);
        }
        return WeightMatrix.of(seg, type, rows, cols);
    }

    private static WeightMatrix randomBlocks(GgmlType type, int rows, int cols, Random rnd, MemorySegment seg) {
        byte[] bytes = new byte[(int) Math.min(seg.byteSize(), 1 << 20)];
        for (long off = 0; off < seg.byteSize(); off += bytes.length) {
            rnd.nextBytes(bytes);
            MemorySegment.copy(bytes, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, off, (int)
                    Math.min(bytes.length, seg.byteSize() - off));
        }
        int[] scaleOffsets = switch (type) {
            case Q2_K -> new int[] {80, 82}; // d, dmin
            case Q3_K -> new int[] {108}; // d
            default -> throw new IllegalArgumentException("no random layout for " + type);
        };
        short scale = Float.floatToFloat16(0.001f);
        for (long b = 0, blocks = seg.byteSize() / type.bytesPerBlock(); b < blocks; b++) {
            for (int o : scaleOffsets) {
                seg.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, b * type.bytesPerBlock() + o, scale);
            }
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

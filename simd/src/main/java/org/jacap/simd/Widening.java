package org.jacap.simd;

import static org.jacap.simd.Layouts.BYTE;
import static org.jacap.simd.Layouts.INT;
import static org.jacap.simd.Layouts.SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jacap.gguf.GgmlType;

/**
 * Load-time widening of a stored type into a wider one whose kernel is faster per weight, with the
 * same numbers: Q5_0 becomes Q8_0 (the same f16 scale, each weight's {@code q − 16} as a signed
 * byte). Q5_0's decode kernel is compute-bound (its fifth bits take a third of its instructions),
 * Q8_0's is not, so 55% more bytes are read faster (docs/performance.md). Every block's integer
 * sum against Q8_0 activations, every dequantized weight and the activation type are the same;
 * only the float accumulation order of the vector kernels changes (the scalar twins agree bit for
 * bit). {@code -Djacap.widen=false} keeps the stored type.
 *
 * <p>A model's loader widens at most {@link #MAX_BYTES} of weights ({@code -Djacap.widen.max-mib},
 * default 1024): the point is the Q5_0 companions of small K-quant files (Gemma 3 270M's
 * Q4_K_M holds 43 MB of them), not a whole Q5_0 file of a large model, whose memory would grow
 * by half.
 */
public final class Widening {
    /** Whether {@link #widen} converts (system property {@code jacap.widen}, default true). */
    public static final boolean ENABLED = !"false".equalsIgnoreCase(System.getProperty("jacap.widen", "true"));

    /** The most bytes of widened copies one model's loader makes. */
    public static final long MAX_BYTES = Long.getLong("jacap.widen.max-mib", 1024) << 20;

    private Widening() {}

    /** Bytes the widened copy of {@code m} takes; 0 when {@link #widen} leaves it as it is. */
    public static long widenedBytes(WeightMatrix m) {
        return !ENABLED || m.type() != GgmlType.Q5_0 ? 0 : m.rows() * GgmlType.Q8_0.bytesFor(m.cols());
    }

    /** {@code m} in the type its kernel runs fastest in: a Q5_0 matrix as Q8_0, others unchanged. */
    public static WeightMatrix widen(WeightMatrix m) {
        long bytes = widenedBytes(m);
        if (bytes == 0) {
            return m;
        }
        MemorySegment dst = mappedScratch(bytes);
        q5_0ToQ8_0(m.data(), dst, bytes / Q8_0Kernel.BYTES);
        return new WeightMatrix(dst, GgmlType.Q8_0, m.rows(), m.cols(), null, true); // q − 16: −16..15
    }

    /**
     * A mapped segment of a deleted temporary file, freed with the matrix: the same segment class
     * as the model file's, so the kernels' memory accesses stay monomorphic. The mapping is
     * private (copy-on-write) over a sparse file: what is written stays in memory. A shared
     * mapping had the kernel write every dirty page to the file's disk half a minute later (the
     * 1B shape's 0.8 GB of copies), a second of a CPU in the middle of a run.
     */
    static MemorySegment mappedScratch(long bytes) {
        try {
            Path f = Files.createTempFile("jacap-widen", ".bin");
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[1]), bytes - 1); // the size, as a hole: no blocks
                return ch.map(FileChannel.MapMode.PRIVATE, 0, bytes, Arena.ofAuto());
            } finally {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            return Arena.ofAuto().allocate(bytes, 64);
        }
    }

    /** Writes {@code blocks} Q5_0 blocks of {@code src} as Q8_0 blocks into {@code dst}. */
    static void q5_0ToQ8_0(MemorySegment src, MemorySegment dst, long blocks) {
        for (long b = 0; b < blocks; b++) {
            long s = b * Q5_0Kernel.BYTES;
            long d = b * Q8_0Kernel.BYTES;
            dst.set(SHORT, d, src.get(SHORT, s));
            int qh = src.get(INT, s + 2);
            for (int j = 0; j < 16; j++) {
                int q = src.get(BYTE, s + 6 + j) & 0xFF;
                int lo = (q & 0x0F) | (((qh >>> j) & 1) << 4);
                int hi = (q >>> 4) | (((qh >>> (j + 16)) & 1) << 4);
                dst.set(BYTE, d + 2 + j, (byte) (lo - 16));
                dst.set(BYTE, d + 18 + j, (byte) (hi - 16));
            }
        }
    }
}

package org.jacap.simd;

import java.lang.foreign.MemorySegment;
import org.jacap.gguf.GgmlType;

/**
 * Load-time repacking of Q4_K and Q6_K matrices for decode: 32 rows side by side
 * ({@link Q4KInterleaved}, {@link Q6KInterleaved}), so a product of one token multiplies each
 * column into 32 rows at once instead of summing pairs and scaling within each row. The stored data stays (prefill dequantizes
 * it), so a repacked matrix takes about twice its bytes, in a mapped file that the OS can page
 * out like the model's own. The same integer sums per row and super-block as the stored kernel;
 * only the float order changes (each row's super-blocks in order, one lane per row).
 * {@code -Djacap.interleave=false} keeps the stored layout only.
 *
 * <p>A model's loader repacks at most {@link #MAX_BYTES} ({@code -Djacap.interleave.max-mib},
 * default 4096).
 */
public final class Interleaving {
    /** Whether {@link #interleave} repacks (system property {@code jacap.interleave}, default true). */
    public static final boolean ENABLED = !"false".equalsIgnoreCase(System.getProperty("jacap.interleave", "true"));

    /** The most bytes of repacked copies one model's loader makes. */
    public static final long MAX_BYTES = Long.getLong("jacap.interleave.max-mib", 4096) << 20;

    private Interleaving() {}

    /** Bytes the repacked form of a {@code rows × cols} matrix of {@code type} takes; 0 for types that have none. */
    static long bytes(GgmlType type, int rows, int cols) {
        return switch (type) {
            case Q4_K -> Q4KInterleaved.bytes(rows, cols);
            case Q6_K -> Q6KInterleaved.bytes(rows, cols);
            default -> 0;
        };
    }

    /** Bytes {@link #interleave} adds for {@code m}; 0 when it leaves {@code m} as it is. */
    public static long interleavedBytes(WeightMatrix m) {
        return !ENABLED || m.interleaved() != null ? 0 : bytes(m.type(), m.rows(), m.cols());
    }

    /** {@code m} with its repacked form beside the stored data (Q4_K, Q6_K), or {@code m} itself. */
    public static WeightMatrix interleave(WeightMatrix m) {
        return ENABLED ? repack(m) : m;
    }

    /**
     * Rows {@code [r0, r0+n)} of the repacked {@code type} matrix {@code w} against {@code x} into
     * {@code out[outOff + r0 ..)}: at 512 bits ({@link Layouts#WIDE}), 256, or the scalar twin;
     * {@code scratch} holds at least {@link Q4KInterleaved#ROWS} floats.
     */
    static void rows(
            GgmlType type,
            boolean vectorized,
            MemorySegment w,
            QuantizedActivations x,
            int cols,
            float[] out,
            int outOff,
            int r0,
            int n,
            float[] scratch) {
        if (type == GgmlType.Q4_K) {
            if (!vectorized) {
                Q4KInterleaved.rowsScalar(w, x, cols, out, outOff, r0, n);
            } else if (Layouts.WIDE) {
                Q4KInterleaved.rowsWide(w, x, cols, out, outOff, r0, n, scratch);
            } else {
                Q4KInterleaved.rowsNarrow(w, x, cols, out, outOff, r0, n, scratch);
            }
        } else if (!vectorized) {
            Q6KInterleaved.rowsScalar(w, x, cols, out, outOff, r0, n);
        } else if (Layouts.WIDE) {
            Q6KInterleaved.rowsWide(w, x, cols, out, outOff, r0, n);
        } else {
            Q6KInterleaved.rowsNarrow(w, x, cols, out, outOff, r0, n);
        }
    }

    /** {@link #interleave} whatever {@link #ENABLED} says (tests). */
    static WeightMatrix repack(WeightMatrix m) {
        long bytes = m.interleaved() != null ? 0 : bytes(m.type(), m.rows(), m.cols());
        if (bytes == 0) {
            return m;
        }
        MemorySegment dst = Widening.mappedScratch(bytes);
        if (m.type() == GgmlType.Q4_K) {
            Q4KInterleaved.repack(m.data(), m.rowBytes(), m.rows(), m.cols(), dst);
        } else {
            Q6KInterleaved.repack(m.data(), m.rowBytes(), m.rows(), m.cols(), dst);
        }
        return new WeightMatrix(m.data(), m.type(), m.rows(), m.cols(), dst);
    }
}

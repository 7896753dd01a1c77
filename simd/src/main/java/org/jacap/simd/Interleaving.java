package org.jacap.simd;

import java.lang.foreign.MemorySegment;
import java.util.stream.IntStream;
import org.jacap.gguf.GgmlType;

/**
 * Load-time repacking of Q4_K, Q6_K, Q4_0, Q4_1 and, at 512 bits ({@link #pays}), Q8_0 (with Q5_0,
 * widened to it) matrices for decode: 32 rows side by side ({@link Q4KInterleaved}, {@link Q6KInterleaved},
 * {@link Q4BlockInterleaved}, {@link Q8_0Interleaved}), so a product of one token multiplies each
 * column into 32 rows at once instead of summing pairs and scaling within each row. The copy is a
 * mapped file that the OS can page out like the model's own. At 512 bits prefill reads the copy
 * too ({@link #readsCopyOnly}), and the loader lets the stored pages go; at 256 bits prefill
 * dequantizes the stored data, so the matrices keep both. The same integer sums per row and super-block as the stored kernel;
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
            case Q4_0, Q4_1 -> Q4BlockInterleaved.bytes(type, rows, cols);
            case Q8_0 -> Q8_0Interleaved.bytes(rows, cols);
            default -> 0;
        };
    }

    /** Bytes {@link #interleave} adds for {@code m}; 0 when it leaves {@code m} as it is. */
    public static long interleavedBytes(WeightMatrix m) {
        return !ENABLED || m.interleaved() != null || !pays(m.type()) ? 0 : bytes(m.type(), m.rows(), m.cols());
    }

    /**
     * {@code m} with its repacked form beside the stored data (Q4_K, Q6_K, Q4_0, Q4_1, and Q8_0
     * at 512 bits), or {@code m} itself.
     */
    public static WeightMatrix interleave(WeightMatrix m) {
        return ENABLED && pays(m.type()) ? repack(m) : m;
    }

    /**
     * Whether a model's loader repacks {@code type} at this vector width: Q8_0 only at 512 bits,
     * where its copy pays (JMH 2048², one thread: 1.40× the stored kernel; 1.06× at 256 bits,
     * docs/performance.md), the others at both.
     */
    static boolean pays(GgmlType type) {
        return type != GgmlType.Q8_0 || Layouts.WIDE;
    }

    /**
     * Rows {@code [r0, r0+n)} of the repacked {@code type} matrix {@code w} against {@code x} into
     * {@code out[outOff + r0 ..)}: at 512 bits ({@link Layouts#WIDE}), 256, or the scalar twin;
     * {@code scratch} holds at least {@link Q4KInterleaved#ROWS} floats; {@code narrowQuants} as
     * {@link WeightMatrix#narrowQuants} (a Q8_0 copy then sums 16 columns before widening).
     */
    static void rows(
            GgmlType type,
            boolean narrowQuants,
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
        } else if (type == GgmlType.Q4_0 || type == GgmlType.Q4_1) {
            if (!vectorized) {
                Q4BlockInterleaved.rowsScalar(type, w, x, cols, out, outOff, r0, n);
            } else if (Layouts.WIDE) {
                Q4BlockInterleaved.rowsWide(type, w, x, cols, out, outOff, r0, n);
            } else {
                Q4BlockInterleaved.rowsNarrow(type, w, x, cols, out, outOff, r0, n);
            }
        } else if (type == GgmlType.Q8_0) {
            if (!vectorized) {
                Q8_0Interleaved.rowsScalar(w, x, cols, out, outOff, r0, n);
            } else if (Layouts.WIDE && narrowQuants) {
                Q8_0Interleaved.rowsWideNarrowQuants(w, x, cols, out, outOff, r0, n);
            } else if (Layouts.WIDE) {
                Q8_0Interleaved.rowsWide(w, x, cols, out, outOff, r0, n);
            } else {
                Q8_0Interleaved.rowsNarrow(w, x, cols, out, outOff, r0, n);
            }
        } else if (!vectorized) {
            Q6KInterleaved.rowsScalar(w, x, cols, out, outOff, r0, n);
        } else if (Layouts.WIDE) {
            Q6KInterleaved.rowsWide(w, x, cols, out, outOff, r0, n);
        } else {
            Q6KInterleaved.rowsNarrow(w, x, cols, out, outOff, r0, n);
        }
    }

    /**
     * Whether both products of {@code m} read its repacked copy: one token's and, at 512 bits
     * ({@link FloatLoops#WIDE_TILE}), a batch's. Its stored data is then read only
     * where it is also an embedding table, or with {@code --precision f32}.
     */
    public static boolean readsCopyOnly(WeightMatrix m) {
        return prefillsFromCopy(m) && FloatLoops.WIDE_TILE;
    }

    /** Whether a batch's product can read {@code m}'s repacked form ({@link #dequantizeGroup}) with the 16-lane tile. */
    static boolean prefillsFromCopy(WeightMatrix m) {
        return m.interleaved() != null; // every type with a copy has a column-major dequantizer
    }

    /**
     * Columns {@code [k0, k0+kn)} of group {@code g} (rows {@code 32g ..}) of the repacked matrix
     * {@code w} as floats, {@code dst[(k − k0)·32 + r]}, the values the stored dequantizer gives;
     * {@code vectorized} false: the scalar twin.
     */
    static void dequantizeGroup(
            GgmlType type, boolean vectorized, MemorySegment w, int g, int cols, int k0, int kn, float[] dst) {
        if (type == GgmlType.Q4_K) {
            if (vectorized) {
                Q4KInterleaved.dequantizeGroup(w, g, cols, k0, kn, dst);
            } else {
                Q4KInterleaved.dequantizeGroupScalar(w, g, cols, k0, kn, dst);
            }
        } else if (type == GgmlType.Q6_K) {
            if (vectorized) {
                Q6KInterleaved.dequantizeGroup(w, g, cols, k0, kn, dst);
            } else {
                Q6KInterleaved.dequantizeGroupScalar(w, g, cols, k0, kn, dst);
            }
        } else if (type == GgmlType.Q8_0) {
            if (vectorized) {
                Q8_0Interleaved.dequantizeGroup(w, g, cols, k0, kn, dst);
            } else {
                Q8_0Interleaved.dequantizeGroupScalar(w, g, cols, k0, kn, dst);
            }
        } else if (vectorized) {
            Q4BlockInterleaved.dequantizeGroup(type, w, g, cols, k0, kn, dst);
        } else {
            Q4BlockInterleaved.dequantizeGroupScalar(type, w, g, cols, k0, kn, dst);
        }
    }

    /** {@link #interleave} whatever {@link #ENABLED} says (tests). */
    static WeightMatrix repack(WeightMatrix m) {
        long bytes = m.interleaved() != null ? 0 : bytes(m.type(), m.rows(), m.cols());
        if (bytes == 0) {
            return m;
        }
        MemorySegment dst = Widening.mappedScratch(bytes);
        // Chunks of whole groups on the common pool: each writes its own bytes, so the copy is the
        // same however it is split, and a model loads in a fraction of the time of one thread.
        int chunks = (m.rows() + REPACK_ROWS - 1) / REPACK_ROWS;
        IntStream.range(0, chunks).parallel().forEach(c -> {
            int r0 = c * REPACK_ROWS;
            repackRows(m, r0, Math.min(m.rows(), r0 + REPACK_ROWS), dst);
        });
        return new WeightMatrix(m.data(), m.type(), m.rows(), m.cols(), dst, m.narrowQuants());
    }

    /** Rows per task of {@link #repack}: whole groups of 32. */
    private static final int REPACK_ROWS = 8 * Q4KInterleaved.ROWS;

    private static void repackRows(WeightMatrix m, int r0, int r1, MemorySegment dst) {
        switch (m.type()) {
            case Q4_K -> Q4KInterleaved.repack(m.data(), m.rowBytes(), r0, r1, m.cols(), dst);
            case Q6_K -> Q6KInterleaved.repack(m.data(), m.rowBytes(), r0, r1, m.cols(), dst);
            case Q4_0, Q4_1 -> Q4BlockInterleaved.repack(m.type(), m.data(), m.rowBytes(), r0, r1, m.cols(), dst);
            case Q8_0 -> Q8_0Interleaved.repack(m.data(), m.rowBytes(), r0, r1, m.cols(), dst);
            default -> throw new IllegalArgumentException("no repacked form for " + m.type());
        }
    }
}

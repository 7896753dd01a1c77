package org.jacap.model;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.jacap.JacapException;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;
import org.jacap.simd.Dequantize;
import org.jacap.simd.Interleaving;
import org.jacap.simd.UnsupportedTensorTypeException;
import org.jacap.simd.WeightMatrix;
import org.jacap.simd.Widening;

/**
 * Looks tensors up by name and turns them into typed weights, checking shape and type so that
 * every mistake is reported at load time with the tensor's name.
 */
final class WeightBinder {
    private final GgufFile file;
    private final String architecture;
    /** Bytes of widened copies made so far ({@link Widening#MAX_BYTES} at most). */
    private long widened;
    /** Bytes of repacked copies made so far ({@link Interleaving#MAX_BYTES} at most). */
    private long interleaved;
    /** Tensors whose file pages no product reads after load (widened, or served by their repacked copy). */
    private final Set<String> copied = new HashSet<>();

    WeightBinder(GgufFile file, String architecture) {
        this.file = file;
        this.architecture = architecture;
    }

    /** Tensors whose file pages the model need not page in: every product reads a copy made at load. */
    Set<String> copied() {
        return copied;
    }

    static String block(int layer, String tensor) {
        return "blk." + layer + "." + tensor;
    }

    boolean has(String name) {
        return file.findTensor(name).isPresent();
    }

    private GgufTensorInfo info(String name) {
        return file.findTensor(name)
                .orElseThrow(() -> new JacapException(
                        "missing tensor '" + name + "' (required by architecture '" + architecture + "')"));
    }

    private static void checkShape(GgufTensorInfo t, long... expected) {
        long[] dims = t.dims();
        if (!Arrays.equals(dims, expected)) {
            throw new JacapException(
                    "tensor '" + t.name() + "' has shape " + t.shape() + ", expected " + Arrays.toString(expected));
        }
    }

    /** A matrix with {@code rows} outputs of width {@code cols} (ggml ne = [cols, rows]). */
    WeightMatrix matrix(String name, int rows, int cols) {
        GgufTensorInfo t = info(name);
        checkShape(t, cols, rows);
        return wrap(t, file.data(t), rows, cols);
    }

    /**
     * A fused matrix split into consecutive row ranges of the given sizes (e.g. Phi-3's
     * {@code attn_qkv} → q, k, v): each part is a zero-copy view of its rows.
     */
    WeightMatrix[] splitRows(String name, int cols, int... rowCounts) {
        int total = Arrays.stream(rowCounts).sum();
        GgufTensorInfo t = info(name);
        checkShape(t, cols, total);
        long rowBytes = t.type().bytesFor(cols);
        if (rowBytes < 0) {
            throw new JacapException("tensor '" + name + "' of type " + t.type() + ": row width " + cols
                    + " is not a multiple of its block size " + t.type().blockSize());
        }
        MemorySegment data = file.data(t);
        WeightMatrix[] parts = new WeightMatrix[rowCounts.length];
        long row = 0;
        for (int i = 0; i < rowCounts.length; i++) {
            parts[i] = wrap(t, data.asSlice(row * rowBytes, rowCounts[i] * rowBytes), rowCounts[i], cols);
            row += rowCounts[i];
        }
        return parts;
    }

    private WeightMatrix wrap(GgufTensorInfo t, MemorySegment data, int rows, int cols) {
        try {
            WeightMatrix m = new WeightMatrix(data, t.type(), rows, cols);
            long bytes = Widening.widenedBytes(m);
            if (bytes > 0 && widened + bytes <= Widening.MAX_BYTES) {
                widened += bytes;
                m = Widening.widen(m);
            }
            long repacked = Interleaving.interleavedBytes(m);
            if (repacked > 0 && interleaved + repacked <= Interleaving.MAX_BYTES) {
                interleaved += repacked;
                m = Interleaving.interleave(m);
            }
            if ((m.data() != data || Interleaving.readsCopyOnly(m)) && data.isMapped()) {
                // the copy serves every product: let the OS drop the file pages the copy was read from
                // (a token's embedding row, where the matrix is also the embedding, faults back in)
                copied.add(t.name());
                data.unload();
            }
            return m;
        } catch (UnsupportedTensorTypeException e) {
            throw new JacapException(
                    "tensor '" + t.name() + "' has type " + t.type() + ", which Jacap cannot compute with yet", e);
        } catch (IllegalArgumentException e) {
            throw new JacapException(
                    "tensor '" + t.name() + "' (" + t.type() + " " + t.shape() + "): " + e.getMessage(), e);
        }
    }

    /** A 1-D tensor of {@code n} values (norm weights, biases, RoPE factors) as floats. */
    float[] vector(String name, int n) {
        GgufTensorInfo t = info(name);
        checkShape(t, n);
        float[] out = new float[n];
        try {
            Dequantize.row(t.type(), file.data(t), 0, out, 0, n);
        } catch (UnsupportedTensorTypeException e) {
            throw new JacapException("tensor '" + name + "' has type " + t.type() + ", which Jacap cannot read yet", e);
        }
        return out;
    }

    /** Like {@link #vector} but null when the tensor is absent. */
    float[] optionalVector(String name, int n) {
        return has(name) ? vector(name, n) : null;
    }
}

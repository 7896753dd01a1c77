package org.jacap.bench.synthetic;

import org.jacap.gguf.GgmlType;

/**
 * One tensor of a synthetic model: GGUF name, dims (dims[0] = row width), stored type and how
 * its values are drawn.
 */
public record TensorPlan(String name, long[] dims, GgmlType type, Fill fill) {

    /** How values are generated. */
    public sealed interface Fill {}

    /** Independent N(0, std²) values (approximately normal). */
    public record Normal(float std) implements Fill {}

    /** Every value equal (RMSNorm weights of 1 keep activations in range). */
    public record Constant(float value) implements Fill {}

    /** Explicit values (RoPE frequency factors). */
    public record Values(float[] values) implements Fill {}

    public TensorPlan {
        dims = dims.clone();
    }

    @Override
    public long[] dims() {
        return dims.clone();
    }

    public int rowWidth() {
        return (int) dims[0];
    }

    public long rows() {
        long r = 1;
        for (int i = 1; i < dims.length; i++) {
            r *= dims[i];
        }
        return r;
    }

    public long elements() {
        return rows() * dims[0];
    }

    public long byteSize() {
        return type.bytesFor(elements());
    }
}

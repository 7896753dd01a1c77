package org.jacap.simd;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

/**
 * 8-lane BF16 to float conversion for the BF16 kernel (scalar ones: {@link HalfFloats}). F16 needs
 * none: C2 turns a plain loop over {@link Float#float16ToFloat} into {@code vcvtph2ps} (see
 * {@link F16Kernel#dequantize}).
 */
final class HalfVectors {
    private HalfVectors() {}

    /** Eight BF16 patterns in int lanes to floats. */
    static FloatVector bf16ToFloat(IntVector b) {
        return b.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }
}

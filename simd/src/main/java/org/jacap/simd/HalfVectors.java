package org.jacap.simd;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/** 8-lane F16 and BF16 to float conversions for the F16/BF16 kernels (scalar ones: {@link HalfFloats}). */
final class HalfVectors {
    private HalfVectors() {}

    /**
     * Eight F16 values, given as sign-extended or zero-extended 16-bit patterns in int lanes, to
     * floats. Placing the 15 magnitude bits 13 places up makes a float whose exponent is off by
     * 2^112 (normals and subnormals alike), so one multiply fixes it exactly; exponent 31
     * (infinity/NaN) is patched to 255 and NaNs get the quiet bit.
     */
    static FloatVector f16ToFloat(IntVector h) {
        IntVector mag = h.and(0x7FFF);
        IntVector shifted = mag.lanewise(VectorOperators.LSHL, 13);
        IntVector finite = shifted.reinterpretAsFloats().mul(0x1p112f).reinterpretAsInts();
        VectorMask<Integer> special = mag.compare(VectorOperators.GE, 0x7C00);
        VectorMask<Integer> nan = mag.compare(VectorOperators.GT, 0x7C00);
        // NaNs come out quiet, as from F16C's vcvtph2ps and Float.float16ToFloat
        IntVector bits = finite.blend(shifted.or(0x7F800000), special).blend(shifted.or(0x7FC00000), nan);
        return bits.or(h.and(0x8000).lanewise(VectorOperators.LSHL, 16)).reinterpretAsFloats();
    }

    /** Eight BF16 patterns in int lanes to floats. */
    static FloatVector bf16ToFloat(IntVector b) {
        return b.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }
}

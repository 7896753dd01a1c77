package org.jacap.simd;

import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.I256;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

/**
 * Byte-lane helpers for the block decoders. x86 has no byte shifts, so per-byte shifts go
 * through 16-bit lanes; callers mask away the bits that cross from the neighbouring byte.
 *
 * <p>A helper that takes or returns vectors is only fast when C2 inlines it; when it does not
 * (the caller is past its inlining budget, or "callee uses too much stack"), vectors are boxed
 * and the kernel runs ~10x slower. So the integer kernels write their pair sums (shorts to ints,
 * AVX2's {@code pmaddwd} against ones, which the Vector API does not expose) inline rather than
 * calling a helper here: {@code (v << 16 >> 16) + (v >> 16)} on int lanes in Q8_0, whose 16-bit
 * sums reach 32512, and the three-op {@code (v + (v << 16)) >> 16} in Q4_0 and Q4_K, valid while
 * the two shorts of a lane add up to less than 2^15 in magnitude.
 */
final class Bytes {
    private Bytes() {}

    /** Low nibble of each byte. */
    static ByteVector low(ByteVector b) {
        return b.and((byte) 0x0F);
    }

    /** High nibble of each byte, shifted down. */
    static ByteVector high(ByteVector b) {
        return b.reinterpretAsShorts()
                .lanewise(VectorOperators.LSHR, 4)
                .reinterpretAsBytes()
                .and((byte) 0x0F);
    }

    /**
     * Eight bytes at {@code off}, zero-extended into int lanes: for bit fields at variable
     * positions, which 64-bit byte/short vectors do not shift reliably on AVX2 (C2 falls back
     * to boxed Java code for variable-count shifts there), while 256-bit int lanes always work.
     */
    static IntVector u8(MemorySegment src, long off) {
        return (IntVector) ByteVector.fromMemorySegment(Layouts.B64, src, off, Layouts.LE)
                .convertShape(VectorOperators.ZERO_EXTEND_B2I, I256, 0);
    }

    /** Int lanes to floats. */
    static FloatVector toFloat(IntVector v) {
        return (FloatVector) v.convert(VectorOperators.I2F, 0);
    }

    /** The {@code width}-bit field at bit {@code shift} of each int lane, moved to bit {@code to}. */
    static IntVector field(IntVector v, int shift, int mask, int to) {
        return v.lanewise(VectorOperators.LSHR, shift).and(mask).lanewise(VectorOperators.LSHL, to);
    }

    /** Eight signed bytes (a 64-bit vector) to eight floats. */
    static FloatVector toFloat(ByteVector b64) {
        return (FloatVector) b64.convertShape(VectorOperators.B2F, F256, 0);
    }

    /** Eight signed bytes (a 64-bit vector) to eight ints. */
    static IntVector toInt(ByteVector b64) {
        return (IntVector) b64.convertShape(VectorOperators.B2I, I256, 0);
    }
}

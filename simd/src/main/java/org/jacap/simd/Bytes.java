package org.jacap.simd;

import static org.jacap.simd.Layouts.F;
import static org.jacap.simd.Layouts.I;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

/**
 * Byte-lane helpers for the block decoders. x86 has no byte shifts, so per-byte shifts go
 * through 16-bit lanes; callers mask away the bits that cross from the neighbouring byte.
 */
final class Bytes {
    private Bytes() {}

    /** Low nibble of each byte. */
    static ByteVector low(ByteVector b) {
        return b.and((byte) 0x0F);
    }

    /** High nibble of each byte, shifted down. */
    static ByteVector high(ByteVector b) {
        return b.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4).reinterpretAsBytes().and((byte) 0x0F);
    }

    /**
     * Moves bit {@code bit} of every byte to bit {@code to} and clears the others, for
     * {@code 0 <= bit, to < 8}.
     */
    static ByteVector moveBit(ByteVector b, int bit, int to) {
        ByteVector s;
        if (bit == to) {
            s = b;
        } else if (bit < to) {
            s = b.reinterpretAsShorts().lanewise(VectorOperators.LSHL, to - bit).reinterpretAsBytes();
        } else {
            s = b.reinterpretAsShorts().lanewise(VectorOperators.LSHR, bit - to).reinterpretAsBytes();
        }
        return s.and((byte) (1 << to));
    }

    /** Moves the 2-bit field at {@code bit} of every byte to bits {@code to, to+1}; others cleared. */
    static ByteVector moveBits2(ByteVector b, int bit, int to) {
        ByteVector s;
        if (bit == to) {
            s = b;
        } else if (bit < to) {
            s = b.reinterpretAsShorts().lanewise(VectorOperators.LSHL, to - bit).reinterpretAsBytes();
        } else {
            s = b.reinterpretAsShorts().lanewise(VectorOperators.LSHR, bit - to).reinterpretAsBytes();
        }
        return s.and((byte) (3 << to));
    }

    /** Eight signed bytes (a 64-bit vector) to eight floats. */
    static FloatVector toFloat(ByteVector b64) {
        return (FloatVector) b64.convertShape(VectorOperators.B2F, F, 0);
    }

    /** Eight signed bytes (a 64-bit vector) to eight ints. */
    static IntVector toInt(ByteVector b64) {
        return (IntVector) b64.convertShape(VectorOperators.B2I, I, 0);
    }
}

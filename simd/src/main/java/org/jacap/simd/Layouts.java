package org.jacap.simd;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorSpecies;

/** Little-endian unaligned layouts (GGUF is little-endian, tensors are not aligned) and the vector species. */
final class Layouts {
    private Layouts() {}

    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);

    /**
     * 8 float lanes: AVX2 width, whatever the CPU. The weight kernels split blocks of 32 into four
     * of these; the activation kernels use {@link VectorOps#F_PREFERRED}.
     */
    static final VectorSpecies<Float> F256 = FloatVector.SPECIES_256;

    /** 8 int lanes, to widen bytes and halves into {@link #F256} vectors. */
    static final VectorSpecies<Integer> I256 = IntVector.SPECIES_256;
    /** 8 bytes: one load feeds one 8-lane float vector after widening. */
    static final VectorSpecies<Byte> B64 = ByteVector.SPECIES_64;

    static final VectorSpecies<Short> S128 = ShortVector.SPECIES_128;
    /** 16 bytes: half a block of 32 (Q8_0) or a whole Q4_0 block of nibbles, widened to 16 shorts. */
    static final VectorSpecies<Byte> B128 = ByteVector.SPECIES_128;
    /** 16 shorts: the integer kernels multiply in 16-bit lanes. */
    static final VectorSpecies<Short> S256 = ShortVector.SPECIES_256;

    /**
     * True when the integer decode kernels run at 512 bits (AVX-512: 32 shorts per multiply),
     * false for their 256-bit forms (AVX2). Picked once at start-up from the CPU's preferred
     * width; {@code -Djacap.simd.bits=256} forces the narrow forms (tests call both directly).
     */
    static final boolean WIDE =
            IntVector.SPECIES_PREFERRED.vectorBitSize() >= 512 && !"256".equals(System.getProperty("jacap.simd.bits"));

    static final VectorSpecies<Byte> B256 = ByteVector.SPECIES_256;
    static final VectorSpecies<Short> S512 = ShortVector.SPECIES_512;
    static final VectorSpecies<Integer> I512 = IntVector.SPECIES_512;
    static final VectorSpecies<Float> F512 = FloatVector.SPECIES_512;
}

package org.jacap.simd;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;
import java.util.function.IntSupplier;
import org.jacap.gguf.GgmlType;

/** Random tensor bytes of any supported type, with the scale fields under the test's control. */
final class Blocks {
    private Blocks() {}

    static final List<GgmlType> SUPPORTED = List.of(
            GgmlType.F32,
            GgmlType.F16,
            GgmlType.BF16,
            GgmlType.Q8_0,
            GgmlType.Q4_0,
            GgmlType.Q4_1,
            GgmlType.Q5_0,
            GgmlType.Q5_1,
            GgmlType.Q2_K,
            GgmlType.Q3_K,
            GgmlType.Q4_K,
            GgmlType.Q5_K,
            GgmlType.Q6_K,
            GgmlType.Q8_K);

    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Byte offsets of the f16 scale fields inside one block (F32-scale Q8_K handled apart). */
    static int[] f16ScaleFields(GgmlType t) {
        return switch (t) {
            case Q8_0, Q4_0, Q5_0 -> new int[] {0};
            case Q4_1, Q5_1, Q4_K, Q5_K -> new int[] {0, 2};
            case Q2_K -> new int[] {80, 82};
            case Q3_K -> new int[] {108};
            case Q6_K -> new int[] {208};
            default -> new int[0];
        };
    }

    /** A modest random f16 scale (about 1e-3 .. 1e-1, either sign). */
    static short randomScale(Random rnd) {
        float v = (float) (Math.pow(10, -3 + 2 * rnd.nextDouble()) * (rnd.nextBoolean() ? 1 : -1));
        return Float.floatToFloat16(v);
    }

    /**
     * {@code count} elements of {@code type} at byte {@code pad} of a fresh segment (so the data
     * is deliberately misaligned when pad is odd). Scales come from {@code scales}; other bytes
     * are random; float types get finite random values.
     */
    static MemorySegment random(GgmlType type, int count, long seed, int pad, IntSupplier scales, Arena arena) {
        Random rnd = new Random(seed);
        long bytes = type.bytesFor(count);
        MemorySegment seg =
                arena == null ? MemorySegment.ofArray(new byte[(int) (bytes + pad)]) : arena.allocate(bytes + pad, 1);
        MemorySegment data = seg.asSlice(pad, bytes);
        switch (type) {
            case F32 -> {
                for (int i = 0; i < count; i++) {
                    data.set(FLOAT, 4L * i, (float) rnd.nextGaussian());
                }
            }
            case F16 -> {
                for (int i = 0; i < count; i++) {
                    data.set(SHORT, 2L * i, Float.floatToFloat16((float) rnd.nextGaussian()));
                }
            }
            case BF16 -> {
                for (int i = 0; i < count; i++) {
                    data.set(SHORT, 2L * i, HalfFloats.floatToBf16((float) rnd.nextGaussian()));
                }
            }
            default -> {
                byte[] b = new byte[(int) bytes];
                rnd.nextBytes(b);
                MemorySegment.copy(MemorySegment.ofArray(b), 0, data, 0, bytes);
                long blocks = count / type.blockSize();
                for (long blk = 0; blk < blocks; blk++) {
                    long base = blk * type.bytesPerBlock();
                    for (int f : f16ScaleFields(type)) {
                        data.set(SHORT, base + f, (short) scales.getAsInt());
                    }
                    if (type == GgmlType.Q8_K) {
                        data.set(FLOAT, base, Float.float16ToFloat((short) scales.getAsInt()));
                    }
                }
            }
        }
        return data;
    }

    static MemorySegment random(GgmlType type, int count, long seed) {
        Random rnd = new Random(seed ^ 0x5DEECE66DL);
        return random(type, count, seed, 0, () -> randomScale(rnd), null);
    }

    /** Random Gaussian activations. */
    static float[] gaussian(int n, long seed, float scale) {
        Random rnd = new Random(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) rnd.nextGaussian() * scale;
        }
        return x;
    }
}

package org.jacap.bench.synthetic;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.jacap.gguf.GgmlType;

/** Encodes rows of float values as one GGML type, at a byte offset of a segment. */
@FunctionalInterface
interface RowEncoder {
    ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    /** Encodes {@code n} values (whole rows) from {@code src[srcOff..]} into {@code dst} at {@code dstOffset}. */
    void encode(float[] src, int srcOff, int n, MemorySegment dst, long dstOffset);

    static RowEncoder of(GgmlType type) {
        return switch (type) {
            case F32 -> (src, off, n, dst, at) -> MemorySegment.copy(src, off, dst, F32, at, n);
            case F16 -> (src, off, n, dst, at) -> {
                for (int i = 0; i < n; i++) {
                    dst.set(I16, at + 2L * i, Float.floatToFloat16(src[off + i]));
                }
            };
            default -> throw new IllegalArgumentException("no quantizer for " + type + " yet");
        };
    }
}

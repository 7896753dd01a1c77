package org.jacap.simd;

import static org.jacap.simd.Layouts.I;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.S128;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import org.jacap.gguf.GgmlType;

/** F16: 2 bytes per element, little-endian IEEE half. */
final class F16Kernel implements TypeKernel {

    @Override
    public GgmlType type() {
        return GgmlType.F16;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.F16;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        int i = 0;
        for (int bound = count & ~7; i < bound; i += 8) {
            ShortVector h = ShortVector.fromMemorySegment(S128, src, offset + 2L * i, LE);
            Half.f16ToFloat((IntVector) h.convertShape(VectorOperators.S2I, I, 0)).intoArray(dst, dstOff + i);
        }
        for (; i < count; i++) {
            dst[dstOff + i] = Half.f16ToFloat(src.get(SHORT, offset + 2L * i));
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int i = 0; i < count; i++) {
            dst[dstOff + i] = Half.f16ToFloat(src.get(SHORT, offset + 2L * i));
        }
    }
}

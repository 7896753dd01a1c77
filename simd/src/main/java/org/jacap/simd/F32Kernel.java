package org.jacap.simd;

import static org.jacap.simd.Layouts.F;
import static org.jacap.simd.Layouts.FLOAT;
import static org.jacap.simd.Layouts.LE;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import org.jacap.gguf.GgmlType;

/** F32: 4 bytes per element, little-endian IEEE single. */
final class F32Kernel implements TypeKernel {

    @Override
    public GgmlType type() {
        return GgmlType.F32;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.F32;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        int i = 0;
        for (int bound = F.loopBound(count); i < bound; i += 8) {
            FloatVector.fromMemorySegment(F, src, offset + 4L * i, LE).intoArray(dst, dstOff + i);
        }
        for (; i < count; i++) {
            dst[dstOff + i] = src.get(FLOAT, offset + 4L * i);
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int i = 0; i < count; i++) {
            dst[dstOff + i] = src.get(FLOAT, offset + 4L * i);
        }
    }
}

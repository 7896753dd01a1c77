package org.jacap.simd;

import static org.jacap.simd.Layouts.F256;
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

    /**
     * Fused dot straight from the mapped row (no copy into scratch first), four accumulators so
     * FMA latency never limits a stream that should run at memory speed.
     */
    @Override
    public float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        FloatVector s0 = FloatVector.zero(F256);
        FloatVector s1 = FloatVector.zero(F256);
        FloatVector s2 = FloatVector.zero(F256);
        FloatVector s3 = FloatVector.zero(F256);
        int i = 0;
        for (int bound = count & ~31; i < bound; i += 32) {
            long o = offset + 4L * i;
            s0 = FloatVector.fromMemorySegment(F256, src, o, LE).fma(FloatVector.fromArray(F256, x, xOff + i), s0);
            s1 = FloatVector.fromMemorySegment(F256, src, o + 32, LE)
                    .fma(FloatVector.fromArray(F256, x, xOff + i + 8), s1);
            s2 = FloatVector.fromMemorySegment(F256, src, o + 64, LE)
                    .fma(FloatVector.fromArray(F256, x, xOff + i + 16), s2);
            s3 = FloatVector.fromMemorySegment(F256, src, o + 96, LE)
                    .fma(FloatVector.fromArray(F256, x, xOff + i + 24), s3);
        }
        for (int bound = count & ~7; i < bound; i += 8) {
            s0 = FloatVector.fromMemorySegment(F256, src, offset + 4L * i, LE)
                    .fma(FloatVector.fromArray(F256, x, xOff + i), s0);
        }
        float sum = LaneSums.sum256(s0.add(s1).add(s2.add(s3)));
        for (; i < count; i++) {
            sum = Math.fma(src.get(FLOAT, offset + 4L * i), x[xOff + i], sum);
        }
        return sum;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        int i = 0;
        for (int bound = F256.loopBound(count); i < bound; i += 8) {
            FloatVector.fromMemorySegment(F256, src, offset + 4L * i, LE).intoArray(dst, dstOff + i);
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

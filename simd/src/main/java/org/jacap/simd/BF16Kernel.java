package org.jacap.simd;

import static org.jacap.simd.Layouts.F256;
import static org.jacap.simd.Layouts.I256;
import static org.jacap.simd.Layouts.LE;
import static org.jacap.simd.Layouts.S128;
import static org.jacap.simd.Layouts.SHORT;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import org.jacap.gguf.GgmlType;

/** BF16: 2 bytes per element, the top 16 bits of an IEEE single. */
final class BF16Kernel implements TypeKernel {

    @Override
    public GgmlType type() {
        return GgmlType.BF16;
    }

    @Override
    public VecDotType vecDotType() {
        return VecDotType.BF16;
    }

    /** Fused dot straight from the mapped row: 8 values widen to floats per load, two accumulators. */
    @Override
    public float dot(MemorySegment src, long offset, float[] x, int xOff, int count, DotScratch scratch) {
        FloatVector s0 = FloatVector.zero(F256);
        FloatVector s1 = FloatVector.zero(F256);
        int i = 0;
        for (int bound = count & ~15; i < bound; i += 16) {
            long o = offset + 2L * i;
            ShortVector h0 = ShortVector.fromMemorySegment(S128, src, o, LE);
            ShortVector h1 = ShortVector.fromMemorySegment(S128, src, o + 16, LE);
            s0 = HalfVectors.bf16ToFloat((IntVector) h0.convertShape(VectorOperators.S2I, I256, 0))
                    .fma(FloatVector.fromArray(F256, x, xOff + i), s0);
            s1 = HalfVectors.bf16ToFloat((IntVector) h1.convertShape(VectorOperators.S2I, I256, 0))
                    .fma(FloatVector.fromArray(F256, x, xOff + i + 8), s1);
        }
        float sum = LaneSums.sum256(s0.add(s1));
        for (; i < count; i++) {
            sum = Math.fma(HalfFloats.bf16ToFloat(src.get(SHORT, offset + 2L * i)), x[xOff + i], sum);
        }
        return sum;
    }

    @Override
    public void dequantize(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        int i = 0;
        for (int bound = count & ~7; i < bound; i += 8) {
            ShortVector h = ShortVector.fromMemorySegment(S128, src, offset + 2L * i, LE);
            HalfVectors.bf16ToFloat((IntVector) h.convertShape(VectorOperators.S2I, I256, 0))
                    .intoArray(dst, dstOff + i);
        }
        for (; i < count; i++) {
            dst[dstOff + i] = HalfFloats.bf16ToFloat(src.get(SHORT, offset + 2L * i));
        }
    }

    @Override
    public void dequantizeScalar(MemorySegment src, long offset, float[] dst, int dstOff, int count) {
        for (int i = 0; i < count; i++) {
            dst[dstOff + i] = HalfFloats.bf16ToFloat(src.get(SHORT, offset + 2L * i));
        }
    }
}

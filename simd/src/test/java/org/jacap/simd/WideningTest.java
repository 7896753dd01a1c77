package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Q5_0 widened to Q8_0 holds the same numbers: every weight, every scalar dot, bit for bit. */
class WideningTest {
    private static final Q5_0Kernel Q5 = (Q5_0Kernel) Kernels.of(GgmlType.Q5_0);
    private static final IntegerDotKernel Q8 = (IntegerDotKernel) Kernels.of(GgmlType.Q8_0);

    /** A Q5_0 matrix of random bytes; the first block's fifth bits all set, the second's all clear. */
    private static WeightMatrix q5(int rows, int cols, long seed) {
        MemorySegment data = Blocks.random(GgmlType.Q5_0, rows * cols, seed);
        data.set(Layouts.INT, 2, -1);
        if (rows * cols >= 64) {
            data.set(Layouts.INT, Q5_0Kernel.BYTES + 2, 0);
        }
        return WeightMatrix.of(data, GgmlType.Q5_0, rows, cols);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 96, 640, 2048})
    void everyWeightDequantizesToTheSameFloat(int cols) {
        WeightMatrix q5 = q5(3, cols, cols);
        WeightMatrix q8 = Widening.widen(q5);
        assertThat(q8.type()).isEqualTo(GgmlType.Q8_0);
        assertThat(q8.rows()).isEqualTo(3);
        assertThat(q8.cols()).isEqualTo(cols);
        for (int r = 0; r < 3; r++) {
            float[] a = new float[cols];
            float[] b = new float[cols];
            Q5.dequantizeScalar(q5.data(), r * q5.rowBytes(), a, 0, cols);
            Q8.dequantizeScalar(q8.data(), r * q8.rowBytes(), b, 0, cols);
            assertThat(b).as("row %d", r).containsExactly(a);
        }
        // the signed bytes reach both ends of Q5_0's range, -16 and 15
        byte min = 0;
        byte max = 0;
        for (long o = 0; o < q8.data().byteSize(); o += Q8_0Kernel.BYTES) {
            for (int j = 0; j < 32; j++) {
                byte v = q8.data().get(Layouts.BYTE, o + 2 + j);
                min = (byte) Math.min(min, v);
                max = (byte) Math.max(max, v);
            }
        }
        assertThat(min).isEqualTo((byte) -16);
        assertThat(max).isEqualTo((byte) 15);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 160, 640, 2048})
    void theScalarDotAgainstQ8_0ActivationsIsTheSameBits(int cols) {
        WeightMatrix q5 = q5(4, cols, 7 + cols);
        WeightMatrix q8 = Widening.widen(q5);
        QuantizedActivations x = new QuantizedActivations();
        x.quantize(VecDotType.Q8_0, Blocks.gaussian(cols, cols, 2f), 0, cols);
        for (int r = 0; r < 4; r++) {
            float a = Q5.dotQ8Scalar(q5.data(), r * q5.rowBytes(), x, cols);
            float b = Q8.dotQ8Scalar(q8.data(), r * q8.rowBytes(), x, cols);
            assertThat(Float.floatToRawIntBits(b)).as("row %d", r).isEqualTo(Float.floatToRawIntBits(a));
        }
    }

    /**
     * The widened matrix is marked narrow (its prefill sums 16 columns in 16 bits), the repacked
     * copy keeps the mark, and a Q8_0 matrix with a wider quant or another type cannot carry it.
     */
    @Test
    void theWidenedMatrixIsMarkedNarrowAndOnlyANarrowQ8_0CanBe() {
        WeightMatrix q8 = Widening.widen(q5(3, 640, 5));
        assertThat(q8.narrowQuants()).isTrue();
        assertThat(Interleaving.repack(q8).narrowQuants()).isTrue();
        MemorySegment wide = Blocks.random(GgmlType.Q8_0, 3 * 64, 9);
        for (long o = 0; o < wide.byteSize(); o += Q8_0Kernel.BYTES) {
            for (int j = 0; j < 32; j++) {
                wide.set(Layouts.BYTE, o + 2 + j, (byte) (j % 33 - 16));
            }
        }
        assertThat(new WeightMatrix(wide, GgmlType.Q8_0, 3, 64, null, true).narrowQuants())
                .isTrue();
        wide.set(Layouts.BYTE, Q8_0Kernel.BYTES * 4 + 2 + 7, (byte) -17);
        assertThatThrownBy(() -> new WeightMatrix(wide, GgmlType.Q8_0, 3, 64, null, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-17")
                .hasMessageContaining("block 4");
        assertThatThrownBy(() -> new WeightMatrix(q5(1, 32, 1).data(), GgmlType.Q5_0, 1, 32, null, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Q5_0");
    }

    /** The copies' memory: the size asked for, zeros until written (a hole of a private mapping), writable to the end. */
    @Test
    void scratchIsZeroedWritableMemoryOfTheSizeAsked() {
        long bytes = 3 * 4096 + 5;
        MemorySegment m = Widening.mappedScratch(bytes);
        assertThat(m.byteSize()).isEqualTo(bytes);
        for (long o = 0; o < bytes; o += 511) {
            assertThat(m.get(Layouts.BYTE, o)).isZero();
        }
        m.set(Layouts.BYTE, bytes - 1, (byte) 7);
        m.set(Layouts.BYTE, 0, (byte) -3);
        assertThat(m.get(Layouts.BYTE, bytes - 1)).isEqualTo((byte) 7);
        assertThat(m.get(Layouts.BYTE, 0)).isEqualTo((byte) -3);
        assertThat(Widening.mappedScratch(bytes).get(Layouts.BYTE, bytes - 1)).isZero(); // each its own
    }

    @Test
    void otherTypesAreLeftAsTheyAre() {
        try (Arena arena = Arena.ofConfined()) {
            Random rnd = new Random(3);
            for (GgmlType t : new GgmlType[] {GgmlType.Q8_0, GgmlType.Q4_0, GgmlType.Q4_K, GgmlType.F32}) {
                int cols = 256;
                WeightMatrix m = WeightMatrix.of(
                        Blocks.random(t, 2 * cols, 1, 0, () -> Blocks.randomScale(rnd), arena), t, 2, cols);
                assertThat(Widening.widen(m)).isSameAs(m);
            }
        }
    }
}

package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.stream.Stream;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** MatMul (vector and scalar twin, every precision, 1-3 threads) against a float64 reference. */
class MatMulTest {
    @AutoClose
    static ThreadPool pool1;

    @AutoClose
    static ThreadPool pool2;

    @AutoClose
    static ThreadPool pool3;

    @BeforeAll
    static void pools() {
        pool1 = new ThreadPool(1);
        pool2 = new ThreadPool(2);
        pool3 = new ThreadPool(3);
    }

    static Stream<GgmlType> types() {
        return Blocks.SUPPORTED.stream();
    }

    /** float64 reference: scalar-dequantized weights, activations rounded as the precision says. */
    static double[][] reference(WeightMatrix w, float[] x, int xOff, int batch, Precision p) {
        TypeKernel k = Kernels.of(w.type());
        float[] wd = new float[w.rows() * w.cols()];
        for (int r = 0; r < w.rows(); r++) {
            k.dequantizeScalar(w.data(), r * w.rowBytes(), wd, r * w.cols(), w.cols());
        }
        float[] xr = Arrays.copyOfRange(x, xOff, xOff + batch * w.cols());
        if (p == Precision.NATIVE) {
            k.vecDotType().round(xr, 0, xr, 0, xr.length);
        }
        double[][] ref = new double[2][batch * w.rows()]; // [0] value, [1] Σ|w·x| for the tolerance
        for (int b = 0; b < batch; b++) {
            for (int r = 0; r < w.rows(); r++) {
                double s = 0;
                double a = 0;
                for (int c = 0; c < w.cols(); c++) {
                    double v = (double) wd[r * w.cols() + c] * xr[b * w.cols() + c];
                    s += v;
                    a += Math.abs(v);
                }
                if (p == Precision.NATIVE && k.vecDotType() == VecDotType.Q8_1) {
                    // llama.cpp's offset term: block minimum m times the f16 block sum s (see VecDotType.Q8_1)
                    int blocks = w.cols() / 32;
                    float[] c = new float[blocks];
                    VecDotType.q8_1SumCorrections(x, xOff + b * w.cols(), w.cols(), c, 0);
                    long blockBytes = w.rowBytes() / blocks;
                    for (int j = 0; j < blocks; j++) {
                        float m = Float.float16ToFloat(
                                w.data().get(Layouts.SHORT, r * w.rowBytes() + j * blockBytes + 2));
                        s += (double) m * c[j];
                        a += Math.abs((double) m * c[j]);
                    }
                }
                ref[0][b * w.rows() + r] = s;
                ref[1][b * w.rows() + r] = a;
            }
        }
        return ref;
    }

    static void check(MatMul mm, WeightMatrix w, int batch, long seed, String what) {
        int xOff = 5;
        int outOff = 3;
        float[] x = Blocks.gaussian(xOff + batch * w.cols() + 2, seed, 1f);
        float[] xCopy = x.clone();
        float[] out = new float[outOff + batch * w.rows() + 4];
        Arrays.fill(out, Float.NaN);
        mm.multiply(w, x, xOff, batch, out, outOff);
        assertThat(x).as("activations untouched").containsExactly(xCopy);
        double[][] ref = reference(w, x, xOff, batch, mm.precision());
        for (int i = 0; i < outOff; i++) {
            assertThat(out[i]).as("guard before output").isNaN();
        }
        for (int i = outOff + batch * w.rows(); i < out.length; i++) {
            assertThat(out[i]).as("guard after output").isNaN();
        }
        for (int i = 0; i < batch * w.rows(); i++) {
            double tol = 2e-6 * Math.sqrt(w.cols()) * ref[1][i] + 1e-30;
            double err = Math.abs(out[outOff + i] - ref[0][i]);
            if (!(err <= tol)) {
                fail(what + ": output " + i + " (token " + i / w.rows() + ", row " + i % w.rows() + ") = "
                        + out[outOff + i] + ", expected " + ref[0][i] + " ± " + tol);
            }
        }
    }

    static int[] colsFor(GgmlType t) {
        return switch (t.blockSize()) {
            case 1 -> new int[] {1, 7, 8, 19, 67, 1100};
            case 32 -> new int[] {32, 96, 1088};
            default -> new int[] {256, 1280};
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("types")
    void vectorProductMatchesFloat64Reference(GgmlType type) {
        long seed = type.ordinal() * 1000L;
        for (int cols : colsFor(type)) {
            for (int rows : new int[] {1, 3, 4, 9}) {
                WeightMatrix w = WeightMatrix.of(Blocks.random(type, rows * cols, seed++), type, rows, cols);
                for (Precision p : Precision.values()) {
                    for (int batch : new int[] {1, 2, 4, 7}) {
                        ThreadPool pool = batch % 2 == 0 ? pool2 : (rows > 4 ? pool3 : pool1);
                        check(
                                new MatMul(pool, p),
                                w,
                                batch,
                                seed++,
                                type + " " + rows + "x" + cols + " batch " + batch + " " + p + " threads "
                                        + pool.threads());
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("types")
    void smallChunksAndTokenBlocksExerciseEveryLoop(GgmlType type) {
        int cols = type.blockSize() == 256 ? 1024 + 256 : 512 + 32;
        int rows = 11;
        WeightMatrix w = WeightMatrix.of(Blocks.random(type, rows * cols, 99), type, rows, cols);
        for (Precision p : Precision.values()) {
            MatMul small = new MatMul(pool2, p, true, 256, 16, 4096);
            MatMul scalar = new MatMul(pool3, p, false, 256, 16, 4096);
            for (int batch : new int[] {1, 5, 13, 37}) {
                check(small, w, batch, batch, type + " small blocks batch " + batch + " " + p);
                check(scalar, w, batch, batch, type + " scalar twin batch " + batch + " " + p);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("types")
    void wideAndNarrowPrefillTilesGiveTheSameBits(GgmlType type) {
        // the 16-lane tile runs where two token groups remain, the 8-lane one on the last odd group
        int cols = type.blockSize() == 256 ? 512 : 96;
        int rows = 13;
        WeightMatrix w = WeightMatrix.of(Blocks.random(type, rows * cols, 7), type, rows, cols);
        for (Precision p : Precision.values()) {
            MatMul wide = new MatMul(pool2, p, true, 256, 64, 4096, true);
            MatMul narrow = new MatMul(pool2, p, true, 256, 64, 4096, false);
            for (int batch : new int[] {17, 32, 33, 48, 70}) {
                float[] x = Blocks.gaussian(batch * cols, batch, 1f);
                float[] a = new float[batch * rows];
                float[] b = new float[batch * rows];
                wide.multiply(w, x, 0, batch, a, 0);
                narrow.multiply(w, x, 0, batch, b, 0);
                assertThat(a).as("%s batch %d %s", type, batch, p).containsExactly(b);
                check(wide, w, batch, batch, type + " wide tile batch " + batch + " " + p);
            }
        }
    }

    @Test
    void nativeAndF32DifferExactlyByTheActivationRounding() {
        // Q5_K pairs with Q8_K activations and has no integer kernel: NATIVE is the float dot on rounded x
        WeightMatrix w = WeightMatrix.of(Blocks.random(GgmlType.Q5_K, 8 * 256, 3), GgmlType.Q5_K, 8, 256);
        float[] x = Blocks.gaussian(256, 4, 1f);
        float[] a = new float[8];
        float[] b = new float[8];
        new MatMul(pool1, Precision.F32).multiply(w, x, 0, 1, a, 0);
        new MatMul(pool1, Precision.NATIVE).multiply(w, x, 0, 1, b, 0);
        assertThat(a).isNotEqualTo(b);
        float[] xr = x.clone();
        VecDotType.Q8_K.round(xr, 0, xr, 0, 256);
        float[] c = new float[8];
        new MatMul(pool1, Precision.F32).multiply(w, xr, 0, 1, c, 0);
        assertThat(c).containsExactly(b);
    }

    @Test
    void nativeDecodeOfQ8_0Q4_0AndQ5_0RunsTheIntegerKernel() {
        for (GgmlType type : new GgmlType[] {GgmlType.Q8_0, GgmlType.Q4_0, GgmlType.Q5_0}) {
            WeightMatrix w = WeightMatrix.of(Blocks.random(type, 9 * 320, 5), type, 9, 320);
            float[] x = Blocks.gaussian(320, 6, 1f);
            float[] fast = new float[9];
            float[] twin = new float[9];
            new MatMul(pool2, Precision.NATIVE).multiply(w, x, 0, 1, fast, 0);
            MatMul.scalarTwin(pool2, Precision.NATIVE).multiply(w, x, 0, 1, twin, 0);
            QuantizedActivations q = new QuantizedActivations();
            q.quantize(VecDotType.Q8_0, x, 0, 320);
            IntegerDotKernel k = (IntegerDotKernel) Kernels.of(type);
            for (int r = 0; r < 9; r++) {
                float want = k.dotQ8Scalar(w.data(), r * w.rowBytes(), q, 320);
                assertThat(twin[r]).as("%s row %d, scalar twin", type, r).isEqualTo(want);
                // the vector kernel's lane order differs from the twin's block order (and C2's reduction from the
                // interpreter's)
                assertThat(fast[r]).as("%s row %d", type, r).isCloseTo(want, within(1e-5f * Math.abs(want)));
            }
        }
    }

    /**
     * Matrices that share one input: the same bits as each product alone, whether the rows go out in
     * one hand-off (integer kernels on one activation type), or one by one (mixed activation types,
     * prefill batches, F32); odd row counts put row groups of two matrices in one piece of the pool.
     */
    @Test
    void sharedInputProductsEqualTheProductsAlone() {
        GgmlType[][] sets = {
            {GgmlType.Q4_0, GgmlType.Q8_0, GgmlType.Q5_0}, // Q8_0 activations
            {GgmlType.Q4_K, GgmlType.Q6_K}, // Q8_K
            {GgmlType.Q4_1, GgmlType.Q4_1}, // Q8_1
            {GgmlType.Q4_K, GgmlType.Q8_0, GgmlType.Q6_K}, // mixed: one by one
            {GgmlType.F32, GgmlType.Q8_0},
        };
        int[] rows = {9, 5, 13};
        int cols = 512;
        for (GgmlType[] set : sets) {
            WeightMatrix[] ws = new WeightMatrix[set.length];
            for (int i = 0; i < set.length; i++) {
                ws[i] = WeightMatrix.of(Blocks.random(set[i], rows[i] * cols, 11 + i), set[i], rows[i], cols);
            }
            for (int batch : new int[] {1, 3}) {
                float[] x = Blocks.gaussian(2 + batch * cols, 7, 1f);
                for (ThreadPool pool : new ThreadPool[] {pool1, pool2, pool3}) {
                    for (MatMul mm : new MatMul[] {
                        new MatMul(pool, Precision.NATIVE),
                        MatMul.scalarTwin(pool, Precision.NATIVE),
                        new MatMul(pool, Precision.F32)
                    }) {
                        float[][] outs = new float[set.length][];
                        for (int i = 0; i < set.length; i++) {
                            outs[i] = new float[batch * rows[i] + 3];
                            Arrays.fill(outs[i], Float.NaN);
                        }
                        mm.multiplyShared(ws, x, 2, batch, outs);
                        for (int i = 0; i < set.length; i++) {
                            float[] alone = new float[batch * rows[i] + 3];
                            Arrays.fill(alone, Float.NaN);
                            mm.multiply(ws[i], x, 2, batch, alone, 0);
                            assertThat(outs[i])
                                    .as(
                                            "%s, matrix %d (%s), batch %d, %d threads, %s",
                                            Arrays.toString(set), i, set[i], batch, pool.threads(), mm.precision())
                                    .containsExactly(alone);
                        }
                    }
                }
            }
        }
        MatMul mm = new MatMul(pool2, Precision.NATIVE);
        WeightMatrix w = WeightMatrix.of(Blocks.random(GgmlType.Q8_0, 4 * 64, 1), GgmlType.Q8_0, 4, 64);
        assertThatThrownBy(() -> mm.multiplyShared(new WeightMatrix[] {w, w}, new float[64], 0, 1, new float[1][4]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mm.multiplyShared(
                        new WeightMatrix[] {w, w}, new float[64], 0, 1, new float[][] {new float[4], new float[3]}))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void resultsDoNotDependOnThreadCount() {
        WeightMatrix w = WeightMatrix.of(Blocks.random(GgmlType.Q4_K, 37 * 512, 8), GgmlType.Q4_K, 37, 512);
        float[] x = Blocks.gaussian(9 * 512, 2, 1f);
        float[] o1 = new float[9 * 37];
        float[] o3 = new float[9 * 37];
        new MatMul(pool1, Precision.NATIVE).multiply(w, x, 0, 9, o1, 0);
        new MatMul(pool3, Precision.NATIVE).multiply(w, x, 0, 9, o3, 0);
        assertThat(o3).containsExactly(o1);
    }

    @Test
    void badArgumentsAreReported() {
        WeightMatrix w = WeightMatrix.of(Blocks.random(GgmlType.Q8_0, 4 * 64, 1), GgmlType.Q8_0, 4, 64);
        MatMul mm = new MatMul(pool1, Precision.F32);
        assertThatThrownBy(() -> mm.multiply(w, new float[100], 0, 2, new float[8], 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> mm.multiply(w, new float[128], 0, 2, new float[7], 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> mm.multiply(w, new float[128], 0, -1, new float[8], 0))
                .isInstanceOf(IllegalArgumentException.class);
        mm.multiply(w, new float[0], 0, 0, new float[0], 0);
    }

    @Test
    void weightMatrixValidatesItsShape() {
        MemorySegment q = Blocks.random(GgmlType.Q8_0, 4 * 64, 1);
        assertThat(WeightMatrix.of(q, GgmlType.Q8_0, 4, 64).rowBytes()).isEqualTo(68);
        assertThatThrownBy(() -> WeightMatrix.of(q, GgmlType.Q8_0, 4, 48))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole blocks of 32");
        assertThatThrownBy(() -> WeightMatrix.of(q, GgmlType.Q8_0, 3, 64))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("takes 204 bytes, but the data has 272");
        assertThatThrownBy(() -> WeightMatrix.of(q, GgmlType.IQ2_XXS, 1, 256))
                .isInstanceOf(UnsupportedTensorTypeException.class)
                .hasMessageContaining("IQ2_XXS");
        assertThatThrownBy(() -> WeightMatrix.of(q, GgmlType.Q8_0, 0, 64)).isInstanceOf(IllegalArgumentException.class);
    }
}

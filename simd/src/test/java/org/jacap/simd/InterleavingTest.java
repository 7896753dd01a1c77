package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Q4_K, Q6_K, Q4_0 and Q4_1 repacked 32 rows side by side ({@link Q4KInterleaved},
 * {@link Q6KInterleaved}, {@link Q4BlockInterleaved}):
 * both vector widths are the scalar twin bit for bit, on whole and partial groups and on ranges
 * that start mid-matrix; the scalar twin is the stored kernel's product up to float order;
 * {@link MatMul} uses it for one token, alone and shared, and writes nothing outside the rows
 * asked for.
 */
class InterleavingTest {
    /** The repacked types, each with its three kernel forms (scalar, 512-bit, 256-bit). */
    private static final Map<GgmlType, Form[]> FORMS = Map.of(
            GgmlType.Q4_K,
            new Form[] {
                Q4KInterleaved::rowsScalar,
                (w, x, cols, out, off, r0, n) -> Q4KInterleaved.rowsWide(w, x, cols, out, off, r0, n, new float[32]),
                (w, x, cols, out, off, r0, n) -> Q4KInterleaved.rowsNarrow(w, x, cols, out, off, r0, n, new float[32])
            },
            GgmlType.Q6_K,
            new Form[] {Q6KInterleaved::rowsScalar, Q6KInterleaved::rowsWide, Q6KInterleaved::rowsNarrow},
            GgmlType.Q4_0,
            blockForms(GgmlType.Q4_0),
            GgmlType.Q4_1,
            blockForms(GgmlType.Q4_1),
            GgmlType.Q8_0,
            new Form[] {Q8_0Interleaved::rowsScalar, Q8_0Interleaved::rowsWide, Q8_0Interleaved::rowsNarrow});

    private static Form[] blockForms(GgmlType type) {
        return new Form[] {
            (w, x, cols, out, off, r0, n) -> Q4BlockInterleaved.rowsScalar(type, w, x, cols, out, off, r0, n),
            (w, x, cols, out, off, r0, n) -> Q4BlockInterleaved.rowsWide(type, w, x, cols, out, off, r0, n),
            (w, x, cols, out, off, r0, n) -> Q4BlockInterleaved.rowsNarrow(type, w, x, cols, out, off, r0, n)
        };
    }

    private static WeightMatrix matrix(GgmlType type, int rows, int cols, long seed) {
        return WeightMatrix.of(Blocks.random(type, rows * cols, seed), type, rows, cols);
    }

    /** The activations {@code type}'s integer kernel takes (Q8_K, Q8_0 or Q8_1). */
    private static QuantizedActivations activations(GgmlType type, int cols, long seed) {
        QuantizedActivations x = new QuantizedActivations();
        x.quantize(Kernels.of(type).vecDotType(), Blocks.gaussian(cols, seed, 1f), 0, cols);
        return x;
    }

    /** Rows [r0, r0+n) by one kernel form into an array of sentinels. */
    private interface Form {
        void rows(MemorySegment w, QuantizedActivations x, int cols, float[] out, int outOff, int r0, int n);
    }

    private static float[] run(Form f, WeightMatrix m, QuantizedActivations x, int r0, int n) {
        float[] out = new float[m.rows() + 40];
        Arrays.fill(out, TestData.SENTINEL);
        f.rows(m.interleaved(), x, m.cols(), out, 3, r0, n);
        return out;
    }

    @ParameterizedTest
    @CsvSource({
        "Q4_K,32,256",
        "Q4_K,64,512",
        "Q4_K,45,768",
        "Q4_K,1,256",
        "Q4_K,70,2048",
        "Q4_K,640,1024",
        "Q6_K,32,256",
        "Q6_K,45,768",
        "Q6_K,1,256",
        "Q6_K,70,2048",
        "Q4_0,32,32",
        "Q4_0,45,96",
        "Q4_0,1,64",
        "Q4_0,70,2048",
        "Q4_0,45,1056", // 33 blocks: an odd block count
        "Q4_1,32,32",
        "Q4_1,45,96",
        "Q4_1,1,64",
        "Q4_1,70,2048",
        "Q4_1,45,1056",
        "Q8_0,32,32",
        "Q8_0,45,96",
        "Q8_0,1,64",
        "Q8_0,70,2048",
        "Q8_0,45,1056" // 33 blocks
    })
    void bothWidthsAreTheScalarTwinBitForBit(GgmlType type, int rows, int cols) {
        WeightMatrix m = Interleaving.repack(matrix(type, rows, cols, rows * 31L + cols));
        assertThat(m.interleaved()).isNotNull();
        QuantizedActivations x = activations(type, cols, cols);
        Form[] forms = FORMS.get(type);
        int[][] ranges = {{0, rows}, {0, Math.min(rows, 13)}, {rows > 32 ? 32 : 0, rows > 32 ? rows - 32 : rows}};
        for (int[] range : ranges) {
            float[] scalar = run(forms[0], m, x, range[0], range[1]);
            float[] wide = run(forms[1], m, x, range[0], range[1]);
            float[] narrow = run(forms[2], m, x, range[0], range[1]);
            assertThat(wide).as("512-bit, rows %s", Arrays.toString(range)).containsExactly(scalar);
            assertThat(narrow).as("256-bit, rows %s", Arrays.toString(range)).containsExactly(scalar);
            TestData.assertSentinels(scalar, 3 + range[0], range[1]);
            TestData.assertSentinels(wide, 3 + range[0], range[1]);
        }
    }

    /**
     * A widened Q5_0 matrix (quants −16..15) decodes through the kernel that sums 16 columns in
     * 16 bits: the scalar twin's and the general kernel's bits, for random weights and for the
     * largest sums there are (every quant −16, every activation −127: 16·16·127 = 32,512 a half).
     */
    @ParameterizedTest
    @CsvSource({"70,2048", "45,96", "1,64", "32,1056"})
    void narrowQuantsSumSixteenColumnsToTheSameBits(int rows, int cols) {
        WeightMatrix random = Interleaving.repack(Widening.widen(matrix(GgmlType.Q5_0, rows, cols, rows * 17L + cols)));
        MemorySegment zeros = Arena.ofAuto().allocate((long) rows * GgmlType.Q5_0.bytesFor(cols));
        for (long b = 0; b < zeros.byteSize(); b += 22) {
            zeros.set(ValueLayout.JAVA_SHORT_UNALIGNED, b, (short) 0x3C00); // d = 1, every q = 0
        }
        WeightMatrix extreme = Interleaving.repack(Widening.widen(WeightMatrix.of(zeros, GgmlType.Q5_0, rows, cols)));
        float[] minusOnes = new float[cols];
        Arrays.fill(minusOnes, -1f);
        QuantizedActivations low = new QuantizedActivations();
        low.quantize(VecDotType.Q8_0, minusOnes, 0, cols);
        QuantizedActivations x = activations(GgmlType.Q8_0, cols, cols);
        assertNarrowQuantsKernelIsTheScalarTwin(random, x, rows);
        assertNarrowQuantsKernelIsTheScalarTwin(extreme, low, rows);
        // the extreme sums are what they must be: each row Σ over blocks of 32 · 16 · 127 · d · dx
        float[] out = run(Q8_0Interleaved::rowsWideNarrowQuants, extreme, low, 0, rows);
        float dx = low.d[0];
        float expected = 0f;
        for (int b = 0; b < cols / 32; b++) {
            expected = Math.fma(32f * 16 * 127, 1f * dx, expected);
        }
        assertThat(out[3]).isEqualTo(expected);
    }

    /** The narrow-quant kernel, and the general one, give the scalar twin's bits on all rows and on a few. */
    private static void assertNarrowQuantsKernelIsTheScalarTwin(WeightMatrix m, QuantizedActivations a, int rows) {
        assertThat(m.narrowQuants()).isTrue();
        for (int[] range : new int[][] {{0, rows}, {0, Math.min(rows, 13)}}) {
            float[] scalar = run(Q8_0Interleaved::rowsScalar, m, a, range[0], range[1]);
            float[] general = run(Q8_0Interleaved::rowsWide, m, a, range[0], range[1]);
            float[] narrow = run(Q8_0Interleaved::rowsWideNarrowQuants, m, a, range[0], range[1]);
            assertThat(narrow).as("rows %s", Arrays.toString(range)).containsExactly(scalar);
            assertThat(general).containsExactly(scalar);
            TestData.assertSentinels(narrow, 3 + range[0], range[1]);
        }
    }

    /**
     * The same exact integer sums as the stored kernel, in another float order: per super-block
     * one rounding of each of the two products and of each running sum, so the two results differ
     * by a few units of the sum of the terms' magnitudes, at most 1e-5 of it here; a wrong
     * weight, scale or minimum moves a row by a large part of it.
     */
    @ParameterizedTest
    @CsvSource({
        "Q4_K,45,768",
        "Q4_K,96,2048",
        "Q4_K,33,256",
        "Q6_K,45,768",
        "Q6_K,96,2048",
        "Q4_0,45,96",
        "Q4_0,96,2048",
        "Q4_1,45,96",
        "Q4_1,96,2048",
        "Q8_0,45,96",
        "Q8_0,96,2048"
    })
    void theScalarTwinIsTheStoredProductUpToFloatOrder(GgmlType type, int rows, int cols) {
        IntegerDotKernel kernel = (IntegerDotKernel) Kernels.of(type);
        WeightMatrix m = Interleaving.repack(matrix(type, rows, cols, rows + 7L * cols));
        QuantizedActivations x = activations(type, cols, 5 + cols);
        float[] out = new float[rows];
        FORMS.get(type)[0].rows(m.interleaved(), x, cols, out, 0, 0, rows);
        float[] w = new float[cols];
        float[] xr = new float[cols];
        Kernels.of(type).vecDotType().round(Blocks.gaussian(cols, 5 + cols, 1f), 0, xr, 0, cols);
        for (int r = 0; r < rows; r++) {
            kernel.dequantizeScalar(m.data(), r * m.rowBytes(), w, 0, cols);
            double magnitude = 0;
            for (int i = 0; i < cols; i++) {
                magnitude += Math.abs((double) w[i] * xr[i]);
            }
            float stored = kernel.dotQ8Scalar(m.data(), r * m.rowBytes(), x, cols);
            assertThat((double) out[r])
                    .as("row %d", r)
                    .isCloseTo(stored, org.assertj.core.api.Assertions.within(1e-5 * magnitude));
        }
    }

    /** MatMul's decode product reads the repacked form, alone and shared, vector and scalar twin the same bits. */
    @Test
    void matMulDecodesFromTheRepackedFormAloneAndShared() {
        int cols = 512;
        WeightMatrix stored = matrix(GgmlType.Q4_K, 70, cols, 3);
        WeightMatrix a = Interleaving.repack(stored);
        WeightMatrix b = Interleaving.repack(matrix(GgmlType.Q6_K, 32, cols, 4));
        float[] x = Blocks.gaussian(cols, 9, 1f);
        QuantizedActivations q = activations(GgmlType.Q4_K, cols, 9);
        float[] expected = new float[70];
        Q4KInterleaved.rowsScalar(a.interleaved(), q, cols, expected, 0, 0, 70);
        try (ThreadPool pool = new ThreadPool(2)) {
            for (MatMul mm :
                    new MatMul[] {new MatMul(pool, Precision.NATIVE), MatMul.scalarTwin(pool, Precision.NATIVE)}) {
                float[] alone = new float[70];
                mm.multiply(a, x, 0, 1, alone, 0);
                assertThat(alone).containsExactly(expected);
                float[][] outs = {new float[70], new float[32], new float[70]};
                mm.multiplyShared(new WeightMatrix[] {a, b, stored}, x, 0, 1, outs);
                assertThat(outs[0]).containsExactly(expected);
                float[] bAlone = new float[32];
                mm.multiply(b, x, 0, 1, bAlone, 0);
                assertThat(outs[1]).containsExactly(bAlone);
                float[] storedAlone = new float[70];
                mm.multiply(stored, x, 0, 1, storedAlone, 0);
                assertThat(outs[2]).containsExactly(storedAlone);
            }
        }
    }

    /** Q4_0, Q4_1 (SmolLM2's type) and Q8_0: MatMul's one-token product is the repacked scalar twin, shared or alone. */
    @ParameterizedTest
    @CsvSource({"Q4_0", "Q4_1", "Q8_0"})
    void matMulDecodesBlocksOf32FromTheRepackedForm(GgmlType type) {
        int cols = 576;
        WeightMatrix a = Interleaving.repack(matrix(type, 70, cols, 11));
        WeightMatrix b = Interleaving.repack(matrix(type, 33, cols, 12));
        float[] x = Blocks.gaussian(cols, 13, 1f);
        QuantizedActivations q = activations(type, cols, 13);
        float[] expectedA = new float[70];
        float[] expectedB = new float[33];
        FORMS.get(type)[0].rows(a.interleaved(), q, cols, expectedA, 0, 0, 70);
        FORMS.get(type)[0].rows(b.interleaved(), q, cols, expectedB, 0, 0, 33);
        try (ThreadPool pool = new ThreadPool(2)) {
            for (MatMul mm :
                    new MatMul[] {new MatMul(pool, Precision.NATIVE), MatMul.scalarTwin(pool, Precision.NATIVE)}) {
                float[] alone = new float[70];
                mm.multiply(a, x, 0, 1, alone, 0);
                assertThat(alone).containsExactly(expectedA);
                float[][] outs = {new float[70], new float[33]};
                mm.multiplyShared(new WeightMatrix[] {a, b}, x, 0, 1, outs);
                assertThat(outs[0]).containsExactly(expectedA);
                assertThat(outs[1]).containsExactly(expectedB);
            }
        }
    }

    /** The loader's path: Q8_0 is repacked only at 512 bits, where its copy pays; Q4_1 at both widths. */
    @Test
    void theLoaderRepacksQ8_0OnlyAt512Bits() {
        WeightMatrix q8 = matrix(GgmlType.Q8_0, 33, 64, 5);
        WeightMatrix q41 = matrix(GgmlType.Q4_1, 33, 64, 6);
        assertThat(Interleaving.interleave(q8).interleaved() != null).isEqualTo(Interleaving.ENABLED && Layouts.WIDE);
        assertThat(Interleaving.interleavedBytes(q8))
                .isEqualTo(Interleaving.ENABLED && Layouts.WIDE ? 2L * 2 * Q8_0Interleaved.GROUP_BLOCK_BYTES : 0);
        assertThat(Interleaving.interleave(q41).interleaved() != null).isEqualTo(Interleaving.ENABLED);
        assertThat(Interleaving.pays(GgmlType.Q8_0)).isEqualTo(Layouts.WIDE);
        assertThat(Interleaving.pays(GgmlType.Q4_K)).isTrue();
    }

    /**
     * Prefill from the repacked copy (every repacked type, at 512 bits): the column-major
     * dequantizer gives the stored dequantizer's values (and its scalar twin's) for columns from
     * 256 on, and MatMul's product of a batch is the stored path's bit for bit, over several column
     * chunks, odd row counts and an odd last token group. Q4_0 and Q4_K at native precision run on
     * integer lanes instead ({@link #integerPrefillIsEachTokensDecodeProduct}).
     */
    @ParameterizedTest
    @CsvSource({"Q8_0, 576", "Q4_0, 576", "Q4_1, 576", "Q4_K, 768", "Q6_K, 768"})
    void prefillFromTheRepackedCopyIsTheStoredPathBitForBit(GgmlType type, int cols) {
        int rows = 70;
        int kn = cols - 256;
        WeightMatrix stored = matrix(type, rows, cols, 21);
        WeightMatrix m = Interleaving.repack(stored);
        WeightMatrix decoy = new WeightMatrix(matrix(type, rows, cols, 99).data(), type, rows, cols, m.interleaved());
        TypeKernel k = Kernels.of(type);
        float[] row = new float[cols];
        float[] vec = new float[32 * kn];
        float[] twin = new float[32 * kn];
        for (int g = 0; g < 3; g++) {
            Interleaving.dequantizeGroup(type, true, m.interleaved(), g, cols, 256, kn, vec);
            Interleaving.dequantizeGroup(type, false, m.interleaved(), g, cols, 256, kn, twin);
            assertThat(vec).containsExactly(twin);
            for (int r = 32 * g; r < Math.min(rows, 32 * g + 32); r++) {
                k.dequantizeScalar(stored.data(), r * stored.rowBytes(), row, 0, cols);
                for (int c = 256; c < cols; c++) {
                    assertThat(vec[(c - 256) * 32 + r - 32 * g])
                            .as("row %d col %d", r, c)
                            .isEqualTo(row[c]);
                }
            }
        }
        try (ThreadPool pool = new ThreadPool(2)) {
            for (Precision p : Precision.values()) {
                if ((type == GgmlType.Q4_0 || type == GgmlType.Q4_K) && p == Precision.NATIVE) {
                    continue;
                }
                MatMul fromCopy = new MatMul(pool, p, true, 256, 64, 4096, true);
                MatMul fromStored = new MatMul(pool, p, true, 256, 64, 4096, true);
                for (int batch : new int[] {2, 17, 33, 70}) {
                    float[] x = Blocks.gaussian(batch * cols, batch, 1f);
                    float[] a = new float[batch * rows + 5];
                    float[] b = new float[batch * rows + 5];
                    // other stored data beside the same copy: the product reads the copy only
                    fromCopy.multiply(decoy, x, 0, batch, a, 3);
                    fromStored.multiply(stored, x, 0, batch, b, 3);
                    assertThat(a).as("%s batch %d %s", type, batch, p).containsExactly(b);
                }
            }
        }
    }

    /**
     * Q4_0, Q4_K and narrow Q8_0 (a widened Q5_0) prefill from the copy on 16-bit integer lanes
     * ({@link Q4_0IntegerTile}, {@link Q4KIntegerTile}, {@link Q8_0NarrowTile}): each token of the batch gets its decode product bit for bit (the
     * repacked scalar twin on that token's activations), from the vector tile and the scalar twin,
     * over several column chunks, an odd row count, partial token groups and 1 or 3 threads;
     * alone, and shared with a matrix of the same activation type that reads the same input
     * through the float path (Q8_0, Q6_K); nothing written outside its rows.
     */
    @ParameterizedTest
    @CsvSource({"Q4_0, 576, Q8_0", "Q4_K, 768, Q6_K", "Q5_0, 576, Q8_0"})
    void integerPrefillIsEachTokensDecodeProduct(GgmlType stored, int cols, GgmlType partner) {
        int rows = 70;
        // Q5_0 is widened to a narrow Q8_0 (Q8_0NarrowTile), as the loader does
        WeightMatrix m = Interleaving.repack(
                stored == GgmlType.Q5_0
                        ? Widening.widen(matrix(stored, rows, cols, 31))
                        : matrix(stored, rows, cols, 31));
        GgmlType type = m.type();
        assertThat(m.narrowQuants()).isEqualTo(stored == GgmlType.Q5_0);
        // other stored data beside the same copy: the product reads the copy only
        WeightMatrix other = stored == GgmlType.Q5_0
                ? Widening.widen(matrix(stored, rows, cols, 98))
                : matrix(stored, rows, cols, 98);
        WeightMatrix decoy = new WeightMatrix(other.data(), type, rows, cols, m.interleaved(), m.narrowQuants());
        WeightMatrix q8 = matrix(partner, 33, cols, 32);
        try (ThreadPool pool1 = new ThreadPool(1);
                ThreadPool pool3 = new ThreadPool(3)) {
            MatMul[] products = {
                new MatMul(pool3, Precision.NATIVE),
                new MatMul(pool1, Precision.NATIVE, true, 256, 16, 4096),
                MatMul.scalarTwin(pool3, Precision.NATIVE)
            };
            for (int batch : new int[] {2, 17, 33, 64, 65, 130}) {
                float[] x = Blocks.gaussian(3 + batch * cols, batch, 1f);
                float[] expected = new float[batch * rows];
                QuantizedActivations q = new QuantizedActivations();
                for (int t = 0; t < batch; t++) {
                    q.quantizeScalar(Kernels.of(type).vecDotType(), x, 3 + t * cols, cols);
                    FORMS.get(type)[0].rows(m.interleaved(), q, cols, expected, t * rows, 0, rows);
                }
                for (MatMul mm : products) {
                    float[] out = new float[batch * rows + 5];
                    Arrays.fill(out, TestData.SENTINEL);
                    mm.multiply(decoy, x, 3, batch, out, 2);
                    assertThat(Arrays.copyOfRange(out, 2, 2 + batch * rows))
                            .as("batch %d, %d threads", batch, mm.pool().threads())
                            .containsExactly(expected);
                    assertThat(new float[] {
                                out[0], out[1], out[out.length - 3], out[out.length - 2], out[out.length - 1]
                            })
                            .containsOnly(TestData.SENTINEL);
                    float[] q8Alone = new float[batch * 33];
                    mm.multiply(q8, x, 3, batch, q8Alone, 0);
                    float[][] outs = {new float[batch * 33], new float[batch * rows]};
                    mm.multiplyShared(new WeightMatrix[] {q8, decoy}, x, 3, batch, outs);
                    assertThat(outs[0])
                            .as("%s shared, batch %d", partner, batch)
                            .containsExactly(q8Alone);
                    assertThat(outs[1]).as("%s shared, batch %d", type, batch).containsExactly(expected);
                    float[][] reversed = {new float[batch * rows], new float[batch * 33]};
                    mm.multiplyShared(new WeightMatrix[] {decoy, q8}, x, 3, batch, reversed);
                    assertThat(reversed[0])
                            .as("%s first, batch %d", type, batch)
                            .containsExactly(expected);
                    assertThat(reversed[1])
                            .as("%s second, batch %d", partner, batch)
                            .containsExactly(q8Alone);
                }
            }
        }
    }

    @Test
    void otherTypesStayAsStoredAndAWrongSizeIsRefused() {
        WeightMatrix q5k = WeightMatrix.of(Blocks.random(GgmlType.Q5_K, 4 * 256, 1), GgmlType.Q5_K, 4, 256);
        assertThat(Interleaving.repack(q5k)).isSameAs(q5k);
        WeightMatrix m = Interleaving.repack(matrix(GgmlType.Q4_K, 33, 256, 2));
        assertThat(m.interleaved().byteSize()).isEqualTo(2L * Q4KInterleaved.GROUP_BLOCK_BYTES);
        assertThat(Interleaving.repack(m)).isSameAs(m);
        MemorySegment small = Arena.ofAuto().allocate(100);
        assertThatThrownBy(() -> new WeightMatrix(m.data(), GgmlType.Q4_K, 33, 256, small))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("interleaved form of a 33 x 256 Q4_K matrix takes 9728 bytes, but it has 100");
    }
}

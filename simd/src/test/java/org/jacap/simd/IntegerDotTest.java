package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The integer matrix-vector kernels ({@link IntegerDotKernel}: every type of the table that has
 * them, today Q4_0, Q5_0 and Q8_0 weights against activations quantized to Q8_0, Q4_1 against
 * Q8_1, Q4_K and Q6_K against Q8_K): the quantized activations are exactly the NATIVE rounding, and both vector widths (512
 * and 256 bits, whichever this CPU prefers), scalar twin and a float64 sum of dequantized weights
 * times rounded activations agree, on odd block counts, misaligned rows and the largest products.
 */
class IntegerDotTest {

    /** The table's types with integer kernels: a new one is tested here without editing a list. */
    static Stream<GgmlType> integerTypes() {
        return Stream.of(GgmlType.values())
                .filter(Kernels::supports)
                .filter(t -> Kernels.of(t) instanceof IntegerDotKernel);
    }

    @Test
    void theTableHasTheIntegerKernelsThisTestExpects() {
        assertThat(integerTypes())
                .contains(GgmlType.Q4_0, GgmlType.Q4_1, GgmlType.Q5_0, GgmlType.Q8_0, GgmlType.Q4_K, GgmlType.Q6_K);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64, 96, 2048, 2080})
    void q8_0ActivationsAreTheNativeRoundingExactly(int n) {
        assertQuantizedIsRounded(VecDotType.Q8_0, n);
        assertQuantizedIsRounded(VecDotType.Q8_1, n); // Q4_1's: the same values, the sums used for its minimums
    }

    @ParameterizedTest
    @ValueSource(ints = {256, 512, 2048, 2304})
    void q8KActivationsAreTheNativeRoundingExactly(int n) {
        assertQuantizedIsRounded(VecDotType.Q8_K, n);
    }

    /** Values times scales equal {@link VecDotType#round} bit for bit; each 32 values sum as stored. */
    private static void assertQuantizedIsRounded(VecDotType type, int n) {
        float[] x = Blocks.gaussian(n, n, 3f);
        x[0] = 0f;
        x[5] = 1e-30f; // tiny values quantize to 0
        int bs = type.blockSize();
        for (int j = bs; j < Math.min(2 * bs, n); j++) {
            x[j] = 0f; // an all-zero block: scale 0, values 0
        }
        QuantizedActivations q = new QuantizedActivations();
        q.quantize(type, x, 0, n);
        float[] rounded = new float[n];
        type.round(x, 0, rounded, 0, n);
        assertThat(q.length).isEqualTo(n);
        assertThat(q.type).isEqualTo(type);
        for (int i = 0; i < n; i++) {
            assertThat((int) q.q[i]).as("value %d", i).isBetween(-127, 127);
            assertThat(q.q[i] * q.d[i / bs]).as("value %d", i).isEqualTo(rounded[i]);
        }
        for (int g = 0; g < n / 32; g++) {
            int sum = 0;
            for (int j = 32 * g; j < 32 * g + 32; j++) {
                sum += q.q[j];
            }
            assertThat(q.sums[g]).as("sum of group %d", g).isEqualTo(sum);
        }
    }

    /**
     * The vector quantizer against its scalar twin, bit for bit: ordinary blocks at an odd offset,
     * an all-zero block, ties at .5 (rounded half to even), signed zeros, a NaN, an infinity, a
     * subnormal maximum (whose scale 127/amax overflows) and magnitudes near the float range.
     */
    @ParameterizedTest
    @ValueSource(strings = {"Q8_0", "Q8_1"})
    void theVectorQuantizerIsItsScalarTwinBitForBit(String name) {
        VecDotType type = VecDotType.valueOf(name);
        int n = 32 * 12;
        float[] x = new float[n + 3];
        float[] g = Blocks.gaussian(n, 7 * n, 2f);
        System.arraycopy(g, 0, x, 3, n);
        Arrays.fill(x, 3 + 32, 3 + 64, 0f);
        for (int j = 0; j < 32; j++) {
            x[3 + 64 + j] = j == 0 ? 127f : (j - 16) * 0.5f; // amax 127: scale 1, values on halves
            x[3 + 96 + j] = j % 2 == 0 ? -0f : 0f;
            x[3 + 128 + j] = j * 1e-40f; // subnormal: 127 / amax is infinite
            x[3 + 160 + j] = (j - 15) * 1e37f;
        }
        x[3 + 96 + 7] = 1e-20f;
        x[3 + 192 + 5] = Float.NaN;
        x[3 + 224 + 9] = Float.NEGATIVE_INFINITY;
        QuantizedActivations vector = new QuantizedActivations();
        QuantizedActivations scalar = new QuantizedActivations();
        vector.quantize(type, x, 3, n);
        scalar.quantizeScalar(type, x, 3, n);
        assertThat(Arrays.copyOf(vector.q, n)).isEqualTo(Arrays.copyOf(scalar.q, n));
        assertThat(Arrays.copyOf(vector.sums, n / 32)).isEqualTo(Arrays.copyOf(scalar.sums, n / 32));
        for (int b = 0; b < n / 32; b++) {
            assertThat(Float.floatToRawIntBits(vector.d[b]))
                    .as("scale %d", b)
                    .isEqualTo(Float.floatToRawIntBits(scalar.d[b]));
            if (type == VecDotType.Q8_1) {
                assertThat(Float.floatToRawIntBits(vector.blockSums[b]))
                        .as("block sum %d", b)
                        .isEqualTo(Float.floatToRawIntBits(scalar.blockSums[b]));
            }
        }
        assertThat(vector.q[64]).isEqualTo((short) 127);
        assertThat(vector.q[64 + 1]).isEqualTo((short) -8); // rint(-7.5): half to even
        assertThat(vector.q[64 + 3]).isEqualTo((short) -6); // rint(-6.5)
    }

    /**
     * The Q8_K quantizer and rounding on vectors against their scalar twins, bit for bit, block by
     * block of 256 at an odd offset: ordinary values, an all-zero block, ties at .5, the same
     * largest magnitude with both signs (the first one sets the scale's sign), a negative maximum,
     * a NaN, an infinity, a subnormal maximum (its scale overflows) and magnitudes near the float
     * range.
     */
    @Test
    void theQ8KVectorQuantizerAndRoundingAreTheirScalarTwinsBitForBit() {
        int n = 256 * 9;
        float[] x = new float[n + 3];
        System.arraycopy(Blocks.gaussian(n, 13, 2f), 0, x, 3, n);
        Arrays.fill(x, 3 + 256, 3 + 512, 0f);
        for (int j = 0; j < 256; j++) {
            x[3 + 512 + j] = (j % 64 - 32) * 0.5f; // on halves: -16 four times, ties at 8 (8 · 127/16 = 63.5)
            x[3 + 1024 + j] = j * 1e-40f; // subnormal: 127 / amax is infinite
            x[3 + 1280 + j] = (j - 127) * 1e36f;
        }
        x[3 + 768 + 5] = 9f; // the same magnitude twice: +9 first, so the scale is negative
        x[3 + 768 + 200] = -9f;
        x[3 + 1536 + 77] = -11f; // a negative maximum
        x[3 + 1792 + 9] = Float.NaN;
        x[3 + 2048 + 100] = Float.NEGATIVE_INFINITY;
        QuantizedActivations vector = new QuantizedActivations();
        QuantizedActivations scalar = new QuantizedActivations();
        vector.quantize(VecDotType.Q8_K, x, 3, n);
        scalar.quantizeScalar(VecDotType.Q8_K, x, 3, n);
        assertThat(Arrays.copyOf(vector.q, n)).isEqualTo(Arrays.copyOf(scalar.q, n));
        assertThat(Arrays.copyOf(vector.sums, n / 32)).isEqualTo(Arrays.copyOf(scalar.sums, n / 32));
        for (int b = 0; b < n / 256; b++) {
            assertThat(Float.floatToRawIntBits(vector.d[b]))
                    .as("scale %d", b)
                    .isEqualTo(Float.floatToRawIntBits(scalar.d[b]));
        }
        float[] rounded = new float[n + 5];
        float[] roundedScalar = new float[n + 5];
        QuantizedActivations.roundQ8K(x, 3, rounded, 5, n); // the float tile's rounding of Q6_K inputs
        VecDotType.Q8_K.round(x, 3, roundedScalar, 5, n);
        for (int i = 0; i < n + 5; i++) {
            assertThat(Float.floatToIntBits(rounded[i]))
                    .as("rounded value %d: %s against %s", i, rounded[i], roundedScalar[i])
                    .isEqualTo(Float.floatToIntBits(roundedScalar[i]));
        }
        assertThatThrownBy(() -> QuantizedActivations.roundQ8K(x, 0, rounded, 0, 288))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(vector.q[768 + 5]).isEqualTo((short) -127);
        assertThat(vector.q[768 + 200]).isEqualTo((short) 127);
        assertThat(vector.d[3]).isNegative();
        assertThat(vector.q[1536 + 77]).isEqualTo((short) -127);
        assertThat(vector.d[6]).isPositive();
    }

    /**
     * The prefill's vector rounding against {@link VecDotType#round}, value for value (NaN as any
     * NaN), on the blocks above: ordinary, all-zero, ties, signed zeros, subnormal, huge, NaN, -Inf.
     */
    @Test
    void theVectorRoundingIsTheScalarRounding() {
        int n = 32 * 12;
        float[] x = new float[n + 3];
        System.arraycopy(Blocks.gaussian(n, 11, 2f), 0, x, 3, n);
        Arrays.fill(x, 3 + 32, 3 + 64, 0f);
        for (int j = 0; j < 32; j++) {
            x[3 + 64 + j] = j == 0 ? 127f : (j - 16) * 0.5f;
            x[3 + 96 + j] = j % 2 == 0 ? -0f : 0f;
            x[3 + 128 + j] = j * 1e-40f;
            x[3 + 160 + j] = (j - 15) * 1e37f;
        }
        x[3 + 192 + 5] = Float.NaN;
        x[3 + 224 + 9] = Float.NEGATIVE_INFINITY;
        float[] vector = new float[n + 5];
        float[] scalar = new float[n + 5];
        QuantizedActivations.roundQ8_0(x, 3, vector, 5, n);
        VecDotType.Q8_0.round(x, 3, scalar, 5, n);
        for (int i = 0; i < n + 5; i++) {
            assertThat(Float.floatToIntBits(vector[i]))
                    .as("value %d: %s against %s", i, vector[i], scalar[i])
                    .isEqualTo(Float.floatToIntBits(scalar[i]));
        }
        assertThat(vector[5 + 64 + 1]).isEqualTo(-8f); // rint(-7.5): half to even, scale 1
        assertThatThrownBy(() -> QuantizedActivations.roundQ8_0(x, 0, vector, 0, 33))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void quantizingAPartialBlockOrAFloatTypeIsRefused() {
        assertThatThrownBy(() -> new QuantizedActivations().quantize(VecDotType.Q8_0, new float[40], 0, 40))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blocks of 32")
                .hasMessageContaining("40");
        assertThatThrownBy(() -> new QuantizedActivations().quantize(VecDotType.Q8_K, new float[288], 0, 288))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blocks of 256")
                .hasMessageContaining("288");
        assertThatThrownBy(() -> new QuantizedActivations().quantize(VecDotType.Q8_1, new float[40], 0, 40))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blocks of 32");
        assertThatThrownBy(() -> new QuantizedActivations().quantize(VecDotType.F16, new float[32], 0, 32))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("F16");
    }

    @ParameterizedTest
    @MethodSource("integerTypes")
    void vectorAndScalarMatchAFloat64SumOnOddAndEvenBlockCounts(GgmlType type) {
        IntegerDotKernel k = (IntegerDotKernel) Kernels.of(type);
        for (int blocks : new int[] {1, 2, 3, 7, 64, 65}) {
            int n = type.blockSize() * blocks;
            for (int pad = 0; pad < 2; pad++) {
                Random rnd = new Random(blocks * 7L + pad);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment seg =
                            Blocks.random(type, n, blocks + 100L * pad, pad, () -> Blocks.randomScale(rnd), arena);
                    float[] x = Blocks.gaussian(n, blocks, 2f);
                    QuantizedActivations q = new QuantizedActivations();
                    q.quantize(k.vecDotType(), x, 0, n);
                    check(k, seg, q, n, type + " x " + blocks + " blocks, pad " + pad);
                }
            }
        }
    }

    /**
     * With unit scales and integer activations of scale 1 every product and sum is an integer far
     * below 2^24, so both vector widths, the scalar twin and a long sum must agree exactly,
     * whatever order each adds in: a wrong nibble, offset, scale or lane is a different integer.
     * Two blocks, and a long row of 4,352 values (136 blocks of 32, 17 super-blocks of 256).
     */
    @ParameterizedTest
    @MethodSource("integerTypes")
    void unitScalesGiveTheExactIntegerSumInEveryForm(GgmlType type) {
        IntegerDotKernel k = (IntegerDotKernel) Kernels.of(type);
        int bs = k.vecDotType().blockSize();
        for (int n : new int[] {2 * Math.max(bs, type.blockSize()), 4352}) {
            MemorySegment seg = Blocks.random(type, n, n + 17L, 0, () -> (short) 0x3C00, null);
            Random rnd = new Random(n);
            float[] x = new float[n];
            for (int i = 0; i < n; i++) {
                // |x| <= 40 beside one 127 per block (scale exactly 1): Q8_1's f16 block sums stay exact integers
                x[i] = i % bs == 0 ? 127f : rnd.nextInt(81) - 40;
            }
            QuantizedActivations q = new QuantizedActivations();
            q.quantize(k.vecDotType(), x, 0, n);
            float[] w = new float[n];
            k.dequantizeScalar(seg, 0, w, 0, n);
            long want = 0;
            for (int i = 0; i < n; i++) {
                assertThat(w[i]).as("%s weight %d is an integer", type, i).isEqualTo((float) Math.rint(w[i]));
                want += (long) w[i] * (long) x[i];
            }
            assertThat(Math.abs(want)).isBetween(1L, 1L << 22);
            String what = type + " x " + n;
            assertThat(k.dotQ8Wide(seg, 0, q, n)).as(what + " 512-bit").isEqualTo((float) want);
            assertThat(k.dotQ8Narrow(seg, 0, q, n)).as(what + " 256-bit").isEqualTo((float) want);
            assertThat(k.dotQ8Scalar(seg, 0, q, n)).as(what + " scalar").isEqualTo((float) want);
        }
    }

    /** The row loops MatMul calls: each row as its kernel's dot gives it, bit for bit, and nothing outside the range written. */
    @ParameterizedTest
    @MethodSource("integerTypes")
    void rowLoopsGiveEachRowsDotAndWriteOnlyTheirRange(GgmlType type) {
        IntegerDotKernel k = (IntegerDotKernel) Kernels.of(type);
        int n = 3 * type.blockSize(); // an odd block count: the tail of the two-accumulator forms
        long rowBytes = type.bytesFor(n);
        MemorySegment seg = Blocks.random(type, 5 * n, 11, 0, () -> (short) 0x2C00, null);
        QuantizedActivations q = new QuantizedActivations();
        q.quantize(k.vecDotType(), Blocks.gaussian(n, 3, 1f), 0, n);
        for (boolean wide : new boolean[] {true, false}) {
            float[] out = new float[6];
            Arrays.fill(out, Float.NaN);
            if (wide) {
                k.dotQ8RowsWide(seg, rowBytes, rowBytes, q, n, out, 2, 3);
            } else {
                k.dotQ8RowsNarrow(seg, rowBytes, rowBytes, q, n, out, 2, 3);
            }
            for (int r = 0; r < 3; r++) {
                long at = (1 + r) * rowBytes;
                float want = wide ? k.dotQ8Wide(seg, at, q, n) : k.dotQ8Narrow(seg, at, q, n);
                assertThat(out[2 + r])
                        .as("%s %s row %d", type, wide ? "512-bit" : "256-bit", r)
                        .isEqualTo(want);
                assertThat(want).isNotZero();
            }
            assertThat(new float[] {out[0], out[1], out[5]}).containsOnly(Float.NaN);
        }
    }

    @ParameterizedTest
    @MethodSource("integerTypes")
    void largestProductsDoNotOverflowTheSixteenBitLanes(GgmlType type) {
        IntegerDotKernel k = (IntegerDotKernel) Kernels.of(type);
        int n = 2 * type.blockSize();
        long bpb = type.bytesPerBlock();
        byte fill = switch (type) {
            case Q8_0 -> (byte) -128; // w = -128
            case Q4_0, Q5_0, Q6_K -> 0; // q - 8 = -8; Q5_0: q - 16 = -16; Q6_K: q - 32 = -32 (int8 scales below)
            default -> (byte) 0xFF; // Q4_K: nibbles 15, 6-bit scales and minimums 63
        };
        MemorySegment seg = MemorySegment.ofArray(new byte[(int) type.bytesFor(n)]);
        for (int b = 0; b < n / type.blockSize(); b++) {
            for (long i = 0; i < bpb; i++) {
                seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, b * bpb + i, fill);
            }
            for (int f : Blocks.f16ScaleFields(type)) {
                seg.set(Blocks.SHORT, b * bpb + f, (short) 0x3C00); // d = dmin = 1
            }
            if (type == GgmlType.Q6_K) {
                for (int j = 0; j < 16; j++) {
                    seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, b * bpb + 192 + j, (byte) -128);
                }
            }
        }
        float[] x = new float[n];
        Arrays.fill(x, -1f); // quantizes to -127
        QuantizedActivations q = new QuantizedActivations();
        q.quantize(k.vecDotType(), x, 0, n);
        float[] w = new float[n];
        k.dequantizeScalar(seg, 0, w, 0, n);
        double want = 0;
        for (int i = 0; i < n; i++) {
            want += (double) w[i] * q.q[i] * q.d[i / k.vecDotType().blockSize()];
        }
        assertThat(want).isNotZero();
        want += q8_1Offset(k, seg, q, n);
        assertThat((double) k.dotQ8Wide(seg, 0, q, n)).isCloseTo(want, within(1e-6 * Math.abs(want)));
        assertThat((double) k.dotQ8Narrow(seg, 0, q, n)).isCloseTo(want, within(1e-6 * Math.abs(want)));
        assertThat((double) k.dotQ8Scalar(seg, 0, q, n)).isCloseTo(want, within(1e-6 * Math.abs(want)));
    }

    @ParameterizedTest
    @MethodSource("integerTypes")
    void adversarialScalesAgreeWithTheScalarTwin(GgmlType type) {
        IntegerDotKernel k = (IntegerDotKernel) Kernels.of(type);
        for (short scale : KernelParityTest.ADVERSARIAL) {
            int n = 3 * type.blockSize();
            MemorySegment seg = Blocks.random(type, n, scale, 0, () -> scale, null);
            QuantizedActivations q = new QuantizedActivations();
            q.quantize(k.vecDotType(), Blocks.gaussian(n, 5, 1f), 0, n);
            float slow = k.dotQ8Scalar(seg, 0, q, n);
            for (float fast : new float[] {k.dotQ8Wide(seg, 0, q, n), k.dotQ8Narrow(seg, 0, q, n)}) {
                if (!Float.isFinite(slow)) {
                    // inf/NaN scales: lanes of mixed sign may meet as inf - inf (NaN) where the block order gives ±inf
                    assertThat(Float.isFinite(fast))
                            .as("%s scale %04x: %s vs %s", type, scale, fast, slow)
                            .isFalse();
                } else {
                    assertThat(fast)
                            .as("%s scale %04x", type, scale)
                            .isCloseTo(slow, within(1e-5f * Math.abs(slow) + 1e-30f));
                }
            }
        }
    }

    /**
     * Q6_K sums each super-block exactly in integers and adds the blocks in order, as its scalar
     * twin does: both widths give the twin's bits, so a Q6_K row's value does not depend on the
     * CPU's vector width or on how C2 compiled the kernel.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 8, 9})
    void q6KWidthsAreTheScalarTwinBitForBit(int blocks) {
        IntegerDotKernel k = (IntegerDotKernel) Kernels.of(GgmlType.Q6_K);
        int n = 256 * blocks;
        Random rnd = new Random(blocks);
        for (int pad = 0; pad < 2; pad++) {
            MemorySegment seg =
                    Blocks.random(GgmlType.Q6_K, n, 31L * blocks + pad, pad, () -> Blocks.randomScale(rnd), null);
            QuantizedActivations q = new QuantizedActivations();
            q.quantize(VecDotType.Q8_K, Blocks.gaussian(n, blocks + 5, 2f), 0, n);
            int want = Float.floatToRawIntBits(k.dotQ8Scalar(seg, 0, q, n));
            assertThat(Float.floatToRawIntBits(k.dotQ8Wide(seg, 0, q, n)))
                    .as("512-bit, %d blocks", blocks)
                    .isEqualTo(want);
            assertThat(Float.floatToRawIntBits(k.dotQ8Narrow(seg, 0, q, n)))
                    .as("256-bit, %d blocks", blocks)
                    .isEqualTo(want);
        }
    }

    @Test
    void theKernelForThisCpuIsOneOfTheTwoWidths() {
        IntegerDotKernel k = (IntegerDotKernel) Kernels.of(GgmlType.Q4_K);
        MemorySegment seg = Blocks.random(GgmlType.Q4_K, 512, 3, 0, () -> (short) 0x2000, null);
        QuantizedActivations q = new QuantizedActivations();
        q.quantize(VecDotType.Q8_K, Blocks.gaussian(512, 4, 1f), 0, 512);
        float picked = Layouts.WIDE ? k.dotQ8Wide(seg, 0, q, 512) : k.dotQ8Narrow(seg, 0, q, 512);
        assertThat(k.dotQ8(seg, 0, q, 512)).isEqualTo(picked);
    }

    /**
     * Q8_1 kernels (Q4_1): llama.cpp multiplies each block minimum by the f16 block sum s instead of
     * the grid's d·Σq; this is Σ_b m_b·(s_b − d_b·Σq_b), 0 for the other activation types.
     */
    static double q8_1Offset(IntegerDotKernel k, MemorySegment seg, QuantizedActivations q, int n) {
        if (q.type != VecDotType.Q8_1) {
            return 0;
        }
        double off = 0;
        long bpb = k.type().bytesPerBlock();
        for (int b = 0; b < n / 32; b++) {
            float m = Float.float16ToFloat(seg.get(Blocks.SHORT, b * bpb + 2));
            off += (double) m * (q.blockSums[b] - (double) q.d[b] * q.sums[b]);
        }
        return off;
    }

    private static void check(IntegerDotKernel k, MemorySegment seg, QuantizedActivations q, int n, String what) {
        float[] w = new float[n];
        k.dequantizeScalar(seg, 0, w, 0, n);
        double want = 0;
        double abs = 0;
        for (int i = 0; i < n; i++) {
            double p = (double) w[i] * q.q[i] * q.d[i / q.type.blockSize()];
            want += p;
            abs += Math.abs(p);
        }
        double tol = 1e-5 * abs + 1e-30;
        double llama = want + q8_1Offset(k, seg, q, n);
        assertThat((double) k.dotQ8Wide(seg, 0, q, n)).as(what + " 512-bit").isCloseTo(llama, within(tol));
        assertThat((double) k.dotQ8Narrow(seg, 0, q, n)).as(what + " 256-bit").isCloseTo(llama, within(tol));
        assertThat((double) k.dotQ8Scalar(seg, 0, q, n)).as(what + " scalar").isCloseTo(llama, within(tol));
        float[] rounded = new float[n];
        for (int i = 0; i < n; i++) {
            rounded[i] = q.q[i] * q.d[i / q.type.blockSize()];
        }
        assertThat((double) k.dot(seg, 0, rounded, 0, n, new DotScratch()))
                .as(what + " float dot")
                .isCloseTo(want, within(tol));
    }
}

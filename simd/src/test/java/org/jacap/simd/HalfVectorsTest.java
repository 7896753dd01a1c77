package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.Test;

class HalfVectorsTest {

    /** The F16 kernel's loop (C2 vectorises it once hot) decodes all 65536 patterns as the JDK does, cold and compiled. */
    @Test
    void f16KernelDecodesEveryPatternLikeTheJdk() {
        MemorySegment seg = MemorySegment.ofArray(new short[65536]);
        for (int h = 0; h < 65536; h++) {
            seg.set(Layouts.SHORT, 2L * h, (short) h);
        }
        TypeKernel k = Kernels.of(GgmlType.F16);
        float[] out = new float[65536 + 3];
        for (int rep = 0; rep < 30; rep++) {
            k.dequantize(seg, 0, out, 3, 65536);
            for (int h = 0; h < 65536; h++) {
                int expected = Float.floatToRawIntBits(Float.float16ToFloat((short) h));
                if (Float.floatToRawIntBits(out[3 + h]) != expected) {
                    assertThat(Float.floatToRawIntBits(out[3 + h]))
                            .as("f16 pattern 0x%04x, pass %d", h, rep)
                            .isEqualTo(expected);
                }
            }
        }
    }

    /**
     * Floats on and around every F16 boundary: each F16 value, its float neighbours, the halfway
     * points between F16 neighbours (ties) and their neighbours, the overflow threshold 65520,
     * float subnormals, infinities and NaN.
     */
    private static float[] roundingCases() {
        java.util.List<Float> cases = new java.util.ArrayList<>();
        for (int h = 0; h < 0x7C00; h++) {
            float v = Float.float16ToFloat((short) h);
            float next = Float.float16ToFloat((short) (h + 1));
            float mid = (v + next) / 2; // exact: F16 values have 11 significant bits
            for (float x :
                    new float[] {v, Math.nextUp(v), Math.nextDown(v), mid, Math.nextUp(mid), Math.nextDown(mid)}) {
                cases.add(x);
                cases.add(-x);
            }
        }
        for (float x : new float[] {
            65520f,
            Math.nextDown(65520f),
            1e30f,
            Float.MAX_VALUE,
            Float.MIN_VALUE,
            0x1p-126f,
            0x1p-25f,
            Math.nextUp(0x1p-25f),
            3 * 0x1p-26f,
            Float.POSITIVE_INFINITY,
            Float.NaN,
            Float.intBitsToFloat(0x7F800001)
        }) {
            cases.add(x);
            cases.add(-x);
        }
        float[] out = new float[cases.size() + 15 & ~15]; // whole 512-bit vectors; the padding is zeros
        for (int i = 0; i < cases.size(); i++) {
            out[i] = cases.get(i);
        }
        return out;
    }

    /** The vector F16 rounding gives the JDK's round trip's bits in every lane, at 256 and 512 bits. */
    @Test
    void vectorRoundingToF16IsTheJdkRoundTrip() {
        float[] x = roundingCases();
        for (var species : java.util.List.of(FloatVector.SPECIES_256, FloatVector.SPECIES_512)) {
            float[] out = new float[x.length];
            for (int i = 0; i < x.length; i += species.length()) {
                HalfVectors.roundToF16(FloatVector.fromArray(species, x, i)).intoArray(out, i);
            }
            for (int i = 0; i < x.length; i++) {
                float expected = HalfFloats.roundToF16(x[i]);
                if (Float.isNaN(expected)) {
                    assertThat(out[i]).as("%s at %s", x[i], species).isNaN();
                } else { // as bits: AssertJ's float equality takes −0 for +0
                    assertThat(Float.floatToRawIntBits(out[i]))
                            .as("%s (0x%08x) at %s", x[i], Float.floatToRawIntBits(x[i]), species)
                            .isEqualTo(Float.floatToRawIntBits(expected));
                }
            }
        }
    }

    /**
     * The decode attention's rounding without the overflow test (a multiply-add by 0 leaves each
     * lane to the rounding) gives the JDK's bits on every case below 65520 in magnitude,
     * infinities and NaN; on a finite case from 65520 up it does not (so a caller's bound is what
     * makes it exact, and this test would see a rounding that ignored it).
     */
    @Test
    void attentionRoundingBelowTheOverflowThresholdIsTheJdkRoundTrip() {
        float[] x = roundingCases();
        float[] out = x.clone();
        HalfOnlineAttention.fmaRoundedBelow65520(new float[x.length], 0, 0f, out, 0, x.length);
        int wrongAbove = 0;
        for (int i = 0; i < x.length; i++) {
            float expected = HalfFloats.roundToF16(Math.fma(0f, 0f, x[i])); // −0 becomes +0 first
            if (Float.isFinite(x[i]) && Math.abs(x[i]) >= 65520f) {
                wrongAbove += Float.floatToRawIntBits(out[i]) != Float.floatToRawIntBits(expected) ? 1 : 0;
            } else if (Float.isNaN(expected)) {
                assertThat(out[i]).as("%s", x[i]).isNaN();
            } else {
                assertThat(Float.floatToRawIntBits(out[i]))
                        .as("%s (0x%08x)", x[i], Float.floatToRawIntBits(x[i]))
                        .isEqualTo(Float.floatToRawIntBits(expected));
            }
        }
        assertThat(wrongAbove).as("finite cases from 65520 up come out finite").isPositive();
    }

    /**
     * The decode attention's rescale on a new maximum, which rounds without the overflow test
     * whatever the bound, gives the scalar rounding's bits for every F16 value (NaNs, infinities
     * and both zeros among them) times factors in [0, 1), over a row with a scalar tail: one row
     * of {@code accumulate} whose values are −0 and weight 0, so the multiply-add after the
     * rescale leaves every lane as it is, −0 included.
     */
    @Test
    void attentionRescaleOfEveryF16ValueIsTheScalarRounding() {
        int dv = 65536 + 7;
        float[] lanes = new float[dv];
        for (int i = 0; i < dv; i++) {
            lanes[i] = HalfFloats.f16ToFloat((short) (i * 40503)); // a permutation of the patterns, the tail repeats
        }
        float[] values = new float[dv];
        java.util.Arrays.fill(values, -0f);
        for (float f : new float[] {0f, 0.5f, 0.999f, 0.3711f, 0x1p-12f, 1e-30f, Math.nextDown(1f)}) {
            for (boolean cheap : new boolean[] {true, false}) {
                float[] state = java.util.Arrays.copyOf(lanes, dv + 4); // lanes, M, S, the factors
                state[dv + 2] = f;
                HalfOnlineAttention.accumulate(state, 0, dv, values, 0, 1, dv + 2, dv + 3, cheap);
                for (int i = 0; i < dv; i++) {
                    float expected = HalfFloats.roundToF16(lanes[i] * f);
                    if (Float.isNaN(expected)) {
                        assertThat(state[i]).as("%s × %s", lanes[i], f).isNaN();
                    } else {
                        // as bits: AssertJ's float equality takes −0 for +0
                        assertThat(Float.floatToRawIntBits(state[i]))
                                .as("%s × %s", lanes[i], f)
                                .isEqualTo(Float.floatToRawIntBits(expected));
                    }
                }
                assertThat(state[dv + 1]).isZero(); // S·f + 0
            }
        }
    }

    @Test
    void f16SpecialValues() {
        assertThat(HalfFloats.f16ToFloat((short) 0x0001)).isEqualTo(0x1p-24f);
        assertThat(HalfFloats.f16ToFloat((short) 0x03FF)).isEqualTo(1023 * 0x1p-24f);
        assertThat(HalfFloats.f16ToFloat((short) 0x7BFF)).isEqualTo(65504f);
        assertThat(HalfFloats.f16ToFloat((short) 0x7C00)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(HalfFloats.f16ToFloat((short) 0xFC00)).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(HalfFloats.f16ToFloat((short) 0x7E00)).isNaN();
        assertThat(Float.floatToRawIntBits(HalfFloats.f16ToFloat((short) 0x8000)))
                .isEqualTo(0x80000000);
        // nearest even on a tie: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10
        assertThat(HalfFloats.floatToF16(1f + 0x1p-11f)).isEqualTo((short) 0x3C00);
        assertThat(HalfFloats.floatToF16(1f + 3 * 0x1p-11f)).isEqualTo((short) 0x3C02);
        assertThat(HalfFloats.floatToF16(70000f)).isEqualTo((short) 0x7C00);
    }

    @Test
    void bf16RoundsToNearestEvenAndKeepsNaN() {
        // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even (1)
        assertThat(HalfFloats.floatToBf16(1f + 0x1p-8f)).isEqualTo((short) 0x3F80);
        // 1 + 3*2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even)
        assertThat(HalfFloats.floatToBf16(1f + 3 * 0x1p-8f)).isEqualTo((short) 0x3F82);
        assertThat(HalfFloats.floatToBf16(1f + 0x1p-8f + 0x1p-20f)).isEqualTo((short) 0x3F81);
        short nan = HalfFloats.floatToBf16(Float.intBitsToFloat(0x7F800001));
        assertThat(HalfFloats.bf16ToFloat(nan)).isNaN();
        assertThat(HalfFloats.bf16ToFloat(HalfFloats.floatToBf16(-2.5f))).isEqualTo(-2.5f);
        int[] lanes = {0x3F80, 0xBF80, 0x7F80, 0x0001, 0x4049, 0, 0x8000, 0x7FC0};
        float[] out = new float[8];
        HalfVectors.bf16ToFloat(IntVector.fromArray(Layouts.I256, lanes, 0)).intoArray(out, 0);
        for (int i = 0; i < 8; i++) {
            assertThat(Float.floatToRawIntBits(out[i])).isEqualTo(lanes[i] << 16);
        }
    }
}

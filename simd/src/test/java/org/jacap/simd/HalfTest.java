package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import jdk.incubator.vector.IntVector;
import org.junit.jupiter.api.Test;

class HalfTest {

    @Test
    void vectorF16ConversionMatchesTheJdkForEveryPattern() {
        int[] lanes = new int[8];
        float[] out = new float[8];
        for (int base = 0; base < 65536; base += 8) {
            for (int i = 0; i < 8; i++) {
                lanes[i] = (short) (base + i); // sign-extended, as S2I delivers them
            }
            Half.f16ToFloat(IntVector.fromArray(Layouts.I, lanes, 0)).intoArray(out, 0);
            for (int i = 0; i < 8; i++) {
                int h = base + i;
                float expected = Float.float16ToFloat((short) h);
                assertThat(Float.floatToRawIntBits(out[i]))
                        .as("f16 pattern 0x%04x", h)
                        .isEqualTo(Float.floatToRawIntBits(expected));
            }
        }
    }

    @Test
    void f16SpecialValues() {
        assertThat(Half.f16ToFloat((short) 0x0001)).isEqualTo(0x1p-24f);
        assertThat(Half.f16ToFloat((short) 0x03FF)).isEqualTo(1023 * 0x1p-24f);
        assertThat(Half.f16ToFloat((short) 0x7BFF)).isEqualTo(65504f);
        assertThat(Half.f16ToFloat((short) 0x7C00)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(Half.f16ToFloat((short) 0xFC00)).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(Half.f16ToFloat((short) 0x7E00)).isNaN();
        assertThat(Float.floatToRawIntBits(Half.f16ToFloat((short) 0x8000))).isEqualTo(0x80000000);
        // nearest even on a tie: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10
        assertThat(Half.floatToF16(1f + 0x1p-11f)).isEqualTo((short) 0x3C00);
        assertThat(Half.floatToF16(1f + 3 * 0x1p-11f)).isEqualTo((short) 0x3C02);
        assertThat(Half.floatToF16(70000f)).isEqualTo((short) 0x7C00);
    }

    @Test
    void bf16RoundsToNearestEvenAndKeepsNaN() {
        // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even (1)
        assertThat(Half.floatToBf16(1f + 0x1p-8f)).isEqualTo((short) 0x3F80);
        // 1 + 3*2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even)
        assertThat(Half.floatToBf16(1f + 3 * 0x1p-8f)).isEqualTo((short) 0x3F82);
        assertThat(Half.floatToBf16(1f + 0x1p-8f + 0x1p-20f)).isEqualTo((short) 0x3F81);
        short nan = Half.floatToBf16(Float.intBitsToFloat(0x7F800001));
        assertThat(Half.bf16ToFloat(nan)).isNaN();
        assertThat(Half.bf16ToFloat(Half.floatToBf16(-2.5f))).isEqualTo(-2.5f);
        int[] lanes = {0x3F80, 0xBF80, 0x7F80, 0x0001, 0x4049, 0, 0x8000, 0x7FC0};
        float[] out = new float[8];
        Half.bf16ToFloat(IntVector.fromArray(Layouts.I, lanes, 0)).intoArray(out, 0);
        for (int i = 0; i < 8; i++) {
            assertThat(Float.floatToRawIntBits(out[i])).isEqualTo(lanes[i] << 16);
        }
    }
}

package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class HalfFloatsTest {

    /** Nearest BF16 by brute force: the two neighbours on the grid, ties to the even mantissa. */
    private static float nearestBf16(float x) {
        int u = Float.floatToRawIntBits(x);
        int lo = u & 0xFFFF_0000;
        int hi = lo + 0x1_0000;
        double dLo = Math.abs((double) Float.intBitsToFloat(lo) - x);
        double dHi = Math.abs((double) Float.intBitsToFloat(hi) - x);
        if (Float.isInfinite(Float.intBitsToFloat(hi)) && !Float.isInfinite(x)) {
            // beyond the largest finite BF16: IEEE rounds by the same tie rule towards "infinity" as the next grid
            // point
            double step = Math.ulp(Float.intBitsToFloat(lo)) * 65536.0;
            dHi = Math.abs(Float.intBitsToFloat(lo) + Math.copySign(step, x) - (double) x);
        }
        if (dLo < dHi) {
            return Float.intBitsToFloat(lo);
        }
        if (dHi < dLo) {
            return Float.intBitsToFloat(hi);
        }
        return ((lo >>> 16) & 1) == 0 ? Float.intBitsToFloat(lo) : Float.intBitsToFloat(hi);
    }

    @Test
    void bf16RoundsToNearestEven() {
        Random rnd = TestData.random(14_000);
        for (int k = 0; k < 200_000; k++) {
            float x = Float.intBitsToFloat(rnd.nextInt());
            if (Float.isNaN(x)) {
                if (!Float.isNaN(HalfFloats.roundToBf16(x))) {
                    throw new AssertionError("NaN lost");
                }
                continue;
            }
            float got = HalfFloats.roundToBf16(x);
            float want = nearestBf16(x);
            if (Float.floatToRawIntBits(got) != Float.floatToRawIntBits(want)) {
                throw new AssertionError("bf16(" + x + "): expected " + want + ", got " + got);
            }
        }
        float one = 1f;
        float halfStep = Math.ulp(1f) * 65536 / 2; // 2^-8
        assertThat(HalfFloats.roundToBf16(one + halfStep)).isEqualTo(1f); // tie -> even (down)
        assertThat(HalfFloats.roundToBf16(one + 3 * halfStep)).isEqualTo(1f + 4 * halfStep); // tie -> even (up)
        assertThat(HalfFloats.roundToBf16(Float.MAX_VALUE)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(HalfFloats.roundToBf16(-0f)).isEqualTo(-0f);
        assertThat(HalfFloats.roundToBf16(Float.NEGATIVE_INFINITY)).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(HalfFloats.bf16ToFloat(HalfFloats.floatToBf16(Float.NaN))).isNaN();
        assertThat(HalfFloats.bf16ToFloat((short) 0x3F80)).isEqualTo(1f);
        assertThat(HalfFloats.bf16ToFloat((short) 0xC000)).isEqualTo(-2f);
    }

    @Test
    void f16RoundsToNearestEvenAndSaturatesToInfinity() {
        assertThat(HalfFloats.roundToF16(65504f)).isEqualTo(65504f);
        assertThat(HalfFloats.roundToF16(65519f)).isEqualTo(65504f);
        assertThat(HalfFloats.roundToF16(65520f)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(HalfFloats.roundToF16(1f + 0.5f / 1024)).isEqualTo(1f); // tie -> even
        assertThat(HalfFloats.roundToF16(1f + 1.5f / 1024)).isEqualTo(1f + 2f / 1024);
        assertThat(HalfFloats.roundToF16(0.1f)).isEqualTo(0.0999755859375f);
        assertThat(HalfFloats.roundToF16(1e-8f)).isEqualTo(0f);
        assertThat(HalfFloats.roundToF16(6e-8f)).isEqualTo((float) Math.pow(2, -24)); // smallest subnormal
        assertThat(HalfFloats.f16ToFloat((short) 0x3C00)).isEqualTo(1f);
        assertThat(HalfFloats.floatToF16(-2f)).isEqualTo((short) 0xC000);
    }

    @Test
    void arrayVersionsRoundOnlyTheirRange() {
        float[] x = {0.1f, 0.1f, 0.1f, 0.1f, 0.1f};
        HalfFloats.roundToF16(x, 1, 2);
        assertThat(x).containsExactly(0.1f, 0.0999755859375f, 0.0999755859375f, 0.1f, 0.1f);
        HalfFloats.roundToBf16(x, 3, 1);
        assertThat(x[3]).isEqualTo(HalfFloats.roundToBf16(0.1f)).isNotEqualTo(0.1f);
        assertThat(x[4]).isEqualTo(0.1f);
    }
}

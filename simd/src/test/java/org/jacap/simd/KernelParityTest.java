package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.jacap.gguf.GgmlType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Vector decoders against their scalar twins, bit for bit, on random and adversarial blocks. */
class KernelParityTest {

    /** Scale patterns that break sloppy conversions: zero, -0, subnormals, max, infinities, NaN. */
    static final short[] ADVERSARIAL = {
        0x0000,
        (short) 0x8000,
        0x0001,
        (short) 0x8001,
        0x03FF,
        0x0400,
        0x7BFF,
        (short) 0xFBFF,
        0x7C00,
        (short) 0xFC00,
        0x7E00,
        0x7C01,
        0x3C00,
        0x1400
    };

    static Stream<GgmlType> types() {
        return Blocks.SUPPORTED.stream();
    }

    static Stream<Arguments> typesAndCounts() {
        return types().flatMap(t -> {
            int bs = t.blockSize();
            int[] counts = bs == 1
                    ? new int[] {1, 7, 8, 9, 15, 16, 17, 31, 33, 100, 257}
                    : new int[] {bs, 2 * bs, 3 * bs, 8 * bs};
            return Arrays.stream(counts).mapToObj(c -> Arguments.of(t, c));
        });
    }

    @ParameterizedTest(name = "{0} x {1}")
    @MethodSource("typesAndCounts")
    void vectorDecodeEqualsScalarOnRandomBlocks(GgmlType type, int count) {
        TypeKernel k = Kernels.of(type);
        for (int pad = 0; pad < 3; pad++) {
            for (long seed = 1; seed <= 3; seed++) {
                Random rnd = new Random(seed * 31 + pad);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment seg = Blocks.random(
                            type, count, seed, pad, () -> Blocks.randomScale(rnd), pad == 1 ? arena : null);
                    assertSameDecode(k, seg, count, type + " pad " + pad + " seed " + seed);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("types")
    void vectorDecodeEqualsScalarOnAdversarialScales(GgmlType type) {
        TypeKernel k = Kernels.of(type);
        int count = Math.max(type.blockSize(), 32) * ADVERSARIAL.length;
        Random rnd = new Random(7);
        int[] next = {0};
        MemorySegment seg = Blocks.random(type, count, 11, 1, () -> ADVERSARIAL[next[0]++ % ADVERSARIAL.length], null);
        if (type == GgmlType.F16 || type == GgmlType.BF16) {
            for (int i = 0; i < count; i++) {
                seg.set(Blocks.SHORT, 2L * i, ADVERSARIAL[rnd.nextInt(ADVERSARIAL.length)]);
            }
        }
        assertSameDecode(k, seg, count, type + " adversarial");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("types")
    void allZeroBlocksDecodeToZero(GgmlType type) {
        TypeKernel k = Kernels.of(type);
        int count = type.blockSize() * 4 + (type.blockSize() == 1 ? 3 : 0);
        MemorySegment seg = MemorySegment.ofArray(new byte[(int) type.bytesFor(count)]);
        float[] v = new float[count];
        float[] s = new float[count];
        Arrays.fill(v, 99f);
        Arrays.fill(s, 99f);
        k.dequantize(seg, 0, v, 0, count);
        k.dequantizeScalar(seg, 0, s, 0, count);
        for (int i = 0; i < count; i++) {
            assertThat(v[i]).as("%s element %d", type, i).isEqualTo(0f);
            assertThat(s[i]).as("%s element %d", type, i).isEqualTo(0f);
        }
    }

    @Test
    void decodersWriteExactlyTheirRange() {
        for (GgmlType type : Blocks.SUPPORTED) {
            TypeKernel k = Kernels.of(type);
            int count = type.blockSize() == 1 ? 13 : type.blockSize() * 2;
            MemorySegment seg = Blocks.random(type, count, 5);
            float[] dst = new float[count + 20];
            Arrays.fill(dst, Float.NaN);
            k.dequantize(seg, 0, dst, 10, count);
            for (int i = 0; i < 10; i++) {
                assertThat(dst[i]).as("%s guard before", type).isNaN();
                assertThat(dst[count + 10 + i]).as("%s guard after", type).isNaN();
            }
        }
    }

    @Test
    void unsupportedTypesAreRefusedWithTheirName() {
        for (GgmlType t : GgmlType.values()) {
            if (Blocks.SUPPORTED.contains(t)) {
                assertThat(Kernels.supports(t)).isTrue();
                assertThat(Kernels.of(t).type()).isEqualTo(t);
                assertThat(Kernels.of(t).blockSize()).isEqualTo(t.blockSize());
            } else {
                assertThat(Kernels.supports(t)).isFalse();
                assertThatThrownBy(() -> Kernels.of(t))
                        .isInstanceOf(UnsupportedTensorTypeException.class)
                        .hasMessageContaining(t.name());
            }
        }
    }

    static void assertSameDecode(TypeKernel k, MemorySegment seg, int count, String what) {
        float[] v = new float[count + 3];
        float[] s = new float[count + 3];
        k.dequantize(seg, 0, v, 3, count);
        k.dequantizeScalar(seg, 0, s, 3, count);
        for (int i = 3; i < count + 3; i++) {
            if (Float.floatToIntBits(v[i]) != Float.floatToIntBits(s[i])) {
                fail(what + ": element " + (i - 3) + " vector " + v[i] + " scalar " + s[i]);
            }
        }
    }
}

package org.jacap.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.jacap.JacapException;
import org.jacap.gguf.GgmlType;
import org.jacap.simd.Dequantize;
import org.jacap.simd.Quantize;
import org.junit.jupiter.api.Test;

/** The storage types write what llama.cpp would store and read it back through one path per type. */
class KvStorageTest {
    private static final int DIM = 64;

    private static float[] randomRows(int rows, long seed) {
        Random r = new Random(seed);
        float[] x = new float[rows * DIM];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (r.nextGaussian() * 3);
        }
        x[5] = 0.5f; // exact halves exercise the rounding
        x[6] = -2.5f;
        return x;
    }

    private static KvCache filled(KvCacheTypes types, float[] keys, float[] values, int rows) {
        KvCache c = new KvCache(1, 1, DIM, DIM, 4, 1000, types, new int[1]);
        for (int i = 0; i < rows; i++) {
            c.append(0, 0, i, keys, i * DIM, values, i * DIM);
        }
        return c;
    }

    @Test
    void f16RoundsEveryValueToNearestHalf() {
        float[] k = randomRows(10, 1);
        float[] v = randomRows(10, 2);
        KvCache c = filled(new KvCacheTypes(KvStorage.F16, KvStorage.F16), k, v, 10);
        float[] keys = c.keys(0, 0);
        float[] values = c.values(0, 0);
        for (int i = 0; i < k.length; i++) {
            assertThat(keys[i]).isEqualTo(Float.float16ToFloat(Float.floatToFloat16(k[i])));
            assertThat(values[i]).isEqualTo(Float.float16ToFloat(Float.floatToFloat16(v[i])));
        }
        assertThat(keys).isNotEqualTo(k); // it really rounds
    }

    @Test
    void q8_0MatchesGgmlsQuantizerBlockForBlock() {
        float[] k = randomRows(7, 3);
        float[] v = randomRows(7, 4);
        KvCache c = filled(new KvCacheTypes(KvStorage.Q8_0, KvStorage.F32), k, v, 7);
        // simd's Quantize writes ggml's quantize_row_q8_0_ref bytes (fixtures: identical to ggml's)
        byte[] ggml = Quantize.toBytes(GgmlType.Q8_0, k);
        float[] expected = new float[k.length];
        Dequantize.row(GgmlType.Q8_0, MemorySegment.ofArray(ggml), 0, expected, 0, k.length);
        assertThat(c.keys(0, 0)).containsExactly(expected);
        assertThat(c.values(0, 0)).containsExactly(v);
        float worst = 0;
        for (int i = 0; i < k.length; i++) {
            worst = Math.max(worst, Math.abs(expected[i] - k[i]));
        }
        // half a step of amax/127 (amax ≈ 10 here), plus the f16 rounding of the scale
        assertThat(worst).isLessThan(0.06f).isGreaterThan(0f);
    }

    @Test
    void bytesFollowTheStorageTypes() {
        float[] k = randomRows(3, 5);
        KvCache f16 = filled(KvCacheTypes.DEFAULT, k, k, 3);
        KvCache q8 = filled(new KvCacheTypes(KvStorage.Q8_0, KvStorage.Q8_0), k, k, 3);
        KvCache f32 = filled(KvCacheTypes.F32, k, k, 3);
        assertThat(f32.bytesInUse()).isEqualTo(3L * (4 * DIM + 4 * DIM + 4));
        assertThat(f16.bytesInUse()).isEqualTo(3L * (2 * DIM + 2 * DIM + 4));
        // 2 blocks of 32 per row, 34 bytes a block
        assertThat(q8.bytesInUse()).isEqualTo(3L * (2 * 34 + 2 * 34 + 4));
        assertThat(KvStorage.Q8_0.bytesPerRow(256)).isEqualTo(272);
    }

    @Test
    void retainDropAndCopyMoveStoredRowsIntact() {
        for (KvStorage type : KvStorage.values()) {
            float[] k = randomRows(20, 6);
            KvCache c = filled(new KvCacheTypes(type, type), k, k, 20);
            float[] all = c.keys(0, 0);
            KvCache d = c.copy();
            assertThat(c.dropBefore(0, 0, 4)).isEqualTo(4);
            c.retain(0, 0, new int[] {0, 3, 15});
            assertThat(c.positions(0, 0)).containsExactly(4, 7, 19);
            float[] kept = c.keys(0, 0);
            for (int j = 0; j < 3; j++) {
                int p = c.positions(0, 0)[j];
                for (int a = 0; a < DIM; a++) {
                    assertThat(kept[j * DIM + a]).as("%s", type).isEqualTo(all[p * DIM + a]);
                }
            }
            assertThat(d.keys(0, 0)).containsExactly(all);
        }
    }

    @Test
    void q8_0NeedsHeadSizesInBlocksOf32() {
        assertThatThrownBy(() ->
                        new KvCache(1, 1, 8, 8, 4, 10, new KvCacheTypes(KvStorage.Q8_0, KvStorage.F16), new int[1]))
                .isInstanceOf(JacapException.class)
                .hasMessage("a q8_0 KV cache needs key head sizes that are multiples of 32; this model's are 8");
    }

    @Test
    void attentionReadsF32InPlaceAndOtherTypesThroughScratch() {
        float[] k = randomRows(5, 7);
        KvCache f32 = filled(KvCacheTypes.F32, k, k, 5);
        f32.dropBefore(0, 0, 2);
        FloatRows live = f32.keyRows(0, 0, null);
        assertThat(live.offset()).isEqualTo(2 * DIM);
        assertThat(live.data()[live.offset()]).isEqualTo(k[2 * DIM]);
        KvCache f16 = filled(KvCacheTypes.DEFAULT, k, k, 5);
        float[] scratch = new float[5 * DIM];
        FloatRows read = f16.keyRows(0, 0, scratch);
        assertThat(read.data()).isSameAs(scratch);
        assertThat(read.offset()).isZero();
        assertThat(scratch[DIM]).isEqualTo(Float.float16ToFloat(Float.floatToFloat16(k[DIM])));
    }
}

package org.jacap.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvCacheTest {

    private static float[] row(int n, float base) {
        float[] r = new float[n];
        for (int i = 0; i < n; i++) {
            r[i] = base + i * 0.01f;
        }
        return r;
    }

    private static void appendN(KvCache c, int layer, int head, int firstPos, int n) {
        for (int i = 0; i < n; i++) {
            int pos = firstPos + i;
            c.append(layer, head, pos, row(c.keyDim(), pos), 0, row(c.valueDim(), -pos), 0);
        }
    }

    @Test
    void appendStoresRowsAndPositionsPerHead() {
        KvCache c = new KvCache(2, 3, 4, 5, 2);
        appendN(c, 1, 2, 10, 3);
        appendN(c, 0, 0, 0, 1);
        assertThat(c.length(1, 2)).isEqualTo(3);
        assertThat(c.length(0, 0)).isEqualTo(1);
        assertThat(c.length(1, 1)).isZero();
        assertThat(c.maxLength()).isEqualTo(3);
        float[] k = c.keys(1, 2);
        float[] v = c.values(1, 2);
        for (int r = 0; r < 3; r++) {
            for (int i = 0; i < 4; i++) {
                assertThat(k[r * 4 + i]).isEqualTo(10 + r + i * 0.01f);
            }
            for (int i = 0; i < 5; i++) {
                assertThat(v[r * 5 + i]).isEqualTo(-(10 + r) + i * 0.01f);
            }
            assertThat(c.positions(1, 2)[r]).isEqualTo(10 + r);
        }
    }

    /** The value bound holds every stored value, in every storage type, through eviction; clear resets it. */
    @Test
    void valueBoundHoldsEveryStoredValue() {
        for (KvStorage storage : KvStorage.values()) {
            KvCache c = new KvCache(1, 2, 32, 32, 4, 64, new KvCacheTypes(storage, storage), new int[] {0});
            java.util.Random rnd = new java.util.Random(3);
            for (int p = 0; p < 20; p++) {
                float[] v = new float[32];
                for (int i = 0; i < 32; i++) {
                    v[i] = (float) (rnd.nextGaussian() * (p == 7 ? 300 : 1)); // one row far larger
                }
                v[5] = p == 9 ? 1e-7f : v[5]; // an F16 subnormal
                c.append(0, 0, p, new float[32], 0, v, 0);
            }
            c.retain(0, 0, new int[] {0, 1, 2}); // the large row gone: the bound stays a bound
            for (int h = 0; h < 2; h++) {
                float bound = c.valueBound(0, h);
                for (float x : c.values(0, h)) {
                    assertThat(Math.abs(x)).as("%s head %d", storage, h).isLessThanOrEqualTo(bound);
                }
            }
            assertThat(c.valueBound(0, 0)).as("%s", storage).isGreaterThan(300f).isLessThan(2000f);
            assertThat(c.valueBound(0, 1)).as("nothing appended").isEqualTo(0x1p-24f);
            assertThat(c.copy().valueBound(0, 0)).isEqualTo(c.valueBound(0, 0));
            float[] nan = new float[32];
            nan[31] = Float.NaN;
            c.append(0, 1, 0, new float[32], 0, nan, 0);
            assertThat(c.valueBound(0, 1)).as("a NaN value").isNaN();
            c.clear();
            assertThat(c.valueBound(0, 1)).isEqualTo(0x1p-24f);
        }
    }

    @Test
    void appendReadsAtTheGivenOffsets() {
        KvCache c = new KvCache(1, 1, 2, 3, 1);
        float[] k = {9, 9, 1, 2};
        float[] v = {9, 4, 5, 6};
        c.append(0, 0, 7, k, 2, v, 1);
        assertThat(c.keys(0, 0)).startsWith(1f, 2f);
        assertThat(c.values(0, 0)).startsWith(4f, 5f, 6f);
    }

    @Test
    void capacityGrowsGeometricallyAndRespectsTheMaximum() {
        KvCache c = new KvCache(1, 1, 2, 2, 0, 40);
        appendN(c, 0, 0, 0, 1);
        assertThat(c.capacity(0, 0)).isEqualTo(16);
        appendN(c, 0, 0, 1, 16);
        assertThat(c.capacity(0, 0)).isEqualTo(32);
        appendN(c, 0, 0, 17, 16);
        assertThat(c.capacity(0, 0)).isEqualTo(40);
        assertThat(c.keys(0, 0)).hasSize(2 * 33); // a copy of the valid rows
        appendN(c, 0, 0, 33, 7);
        assertThat(c.length(0, 0)).isEqualTo(40);
        assertThatThrownBy(() -> appendN(c, 0, 0, 40, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maximum capacity of 40");
        // earlier rows survive growth
        assertThat(c.keys(0, 0)[2 * 5]).isEqualTo(5f);
        assertThat(c.positions(0, 0)[39]).isEqualTo(39);
    }

    @Test
    void reserveGrowsOnceForAChunk() {
        KvCache c = new KvCache(1, 1, 2, 2, 4);
        c.reserve(0, 0, 100);
        assertThat(c.capacity(0, 0)).isEqualTo(100);
        assertThat(c.length(0, 0)).isZero();
    }

    @Test
    void retainCompactsInOrderAndKeepsPositions() {
        KvCache c = new KvCache(1, 2, 3, 2, 8);
        appendN(c, 0, 1, 0, 6);
        appendN(c, 0, 0, 0, 6);
        c.retain(0, 1, new int[] {0, 2, 5});
        assertThat(c.length(0, 1)).isEqualTo(3);
        assertThat(c.length(0, 0)).isEqualTo(6);
        assertThat(java.util.Arrays.copyOf(c.positions(0, 1), 3)).containsExactly(0, 2, 5);
        assertThat(c.keys(0, 1)[3]).isEqualTo(2f);
        assertThat(c.keys(0, 1)[6 + 2]).isEqualTo(5.02f);
        assertThat(c.values(0, 1)[2 * 2 + 1]).isEqualTo(-5 + 0.01f);
        // appending continues at the true position, after the kept ones
        c.append(0, 1, 6, row(3, 6), 0, row(2, -6), 0);
        assertThat(c.positions(0, 1)[3]).isEqualTo(6);
        c.retain(0, 1, new int[0]);
        assertThat(c.length(0, 1)).isZero();
    }

    @Test
    void retainRejectsBadIndices() {
        KvCache c = new KvCache(1, 1, 1, 1, 4);
        appendN(c, 0, 0, 0, 3);
        assertThatThrownBy(() -> c.retain(0, 0, new int[] {1, 1})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.retain(0, 0, new int[] {2, 1})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.retain(0, 0, new int[] {3})).isInstanceOf(IllegalArgumentException.class);
        assertThat(c.length(0, 0)).isEqualTo(3);
    }

    @Test
    void appendRejectsPositionsThatDoNotAdvance() {
        KvCache c = new KvCache(1, 1, 1, 1, 4);
        appendN(c, 0, 0, 5, 1);
        assertThatThrownBy(() -> appendN(c, 0, 0, 5, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("position 5");
    }

    @Test
    void copyIsDeep() {
        KvCache c = new KvCache(2, 1, 2, 2, 4);
        appendN(c, 1, 0, 0, 3);
        KvCache d = c.copy();
        c.retain(1, 0, new int[] {2});
        appendN(c, 1, 0, 3, 1);
        assertThat(d.length(1, 0)).isEqualTo(3);
        assertThat(d.keys(1, 0)[0]).isEqualTo(0f);
        assertThat(d.positions(1, 0)[2]).isEqualTo(2);
        assertThat(c.length(1, 0)).isEqualTo(2);
        assertThat(d.bytesAllocated()).isEqualTo(c.bytesAllocated());
    }

    @Test
    void bytesCountKeysValuesAndPositions() {
        KvCache c = new KvCache(2, 2, 3, 5, 10);
        assertThat(c.bytesInUse()).isZero();
        assertThat(c.bytesAllocated()).isEqualTo(4L * 10 * 4 * (3 + 5 + 1));
        appendN(c, 0, 0, 0, 2);
        appendN(c, 1, 1, 0, 3);
        assertThat(c.bytesInUse()).isEqualTo(5L * 4 * (3 + 5 + 1));
        c.retain(1, 1, new int[] {1});
        assertThat(c.bytesInUse()).isEqualTo(3L * 4 * 9);
        c.clear();
        assertThat(c.bytesInUse()).isZero();
        assertThat(c.maxLength()).isZero();
        assertThat(c.bytesAllocated()).isEqualTo(4L * 10 * 4 * 9);
    }

    @Test
    void rejectsOutOfRangeHeads() {
        KvCache c = new KvCache(2, 2, 1, 1, 1);
        assertThatThrownBy(() -> c.length(2, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> c.keys(0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aWindowedLayerIsBoundedByItsOwnRowsAndDropsInPlace() {
        // layer 0 attends globally (context 10), layer 1 over a window: at most 6 rows
        KvCache c = new KvCache(2, 1, 2, 2, 4, 10, KvCacheTypes.F32, new int[] {0, 6});
        assertThat(c.isWindowed(1)).isTrue();
        assertThat(c.isWindowed(0)).isFalse();
        for (int p = 0; p < 40; p++) {
            c.dropBefore(1, 0, p - 4); // window 5: keep positions > p - 5
            appendN(c, 1, 0, p, 1);
            assertThat(c.positions(1, 0))
                    .containsExactly(java.util.stream.IntStream.rangeClosed(Math.max(0, p - 4), p)
                            .toArray());
            assertThat(c.keys(1, 0)[0]).isEqualTo(Math.max(0, p - 4));
        }
        // the windowed layer's rows never set the context-bounded length
        assertThat(c.maxLength()).isZero();
        assertThat(c.longestHead()).isEqualTo(5);
        assertThat(c.capacity(1, 0)).isLessThanOrEqualTo(6);
        assertThatThrownBy(() -> {
                    c.reserve(1, 0, 2);
                })
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maximum capacity of 6");
        assertThat(c.firstRowFrom(1, 0, 5, 37)).isEqualTo(2);
        assertThat(c.position(1, 0, 2)).isEqualTo(37);
    }

    @Test
    void leadingWindowedLayersCountsUpToTheFirstGlobalOne() {
        int[][] windows = {{9, 9, 0, 9}, {0, 9, 9, 9}, {0, 0, 0, 0}, {9, 9, 9, 9}};
        int[] expected = {2, 0, 0, 4};
        for (int i = 0; i < windows.length; i++) {
            KvCache c = new KvCache(4, 1, 2, 2, 4, 16, KvCacheTypes.F32, windows[i]);
            assertThat(c.leadingWindowedLayers())
                    .as("windows %s", java.util.Arrays.toString(windows[i]))
                    .isEqualTo(expected[i]);
        }
    }
}

package org.jacap.simd;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KScalesTest {

    /** The word-wide unpacking agrees with the per-byte rules (and pack inverts both) on random and extreme scales. */
    @Test
    void wordWideUnpackingMatchesThePerByteRules() {
        Random random = new Random(7);
        for (int trial = 0; trial < 2000; trial++) {
            int[] sc = new int[8];
            int[] m = new int[8];
            for (int j = 0; j < 8; j++) {
                sc[j] = trial == 0 ? 63 : trial == 1 ? 0 : random.nextInt(64);
                m[j] = trial == 0 ? 63 : trial == 1 ? 0 : random.nextInt(64);
            }
            byte[] packed = new byte[12];
            KScales.pack(sc, m, packed);
            ByteBuffer bb = ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN);
            long lo = bb.getLong(0);
            int hi = bb.getInt(8);
            long scales = KScales.scales(lo, hi);
            long mins = KScales.mins(lo, hi);
            MemorySegment seg = MemorySegment.ofArray(packed);
            for (int j = 0; j < 8; j++) {
                assertThat(KScales.at(scales, j))
                        .as("scale %d", j)
                        .isEqualTo(sc[j])
                        .isEqualTo(KScales.scale(seg, 0, j));
                assertThat(KScales.at(mins, j)).as("min %d", j).isEqualTo(m[j]).isEqualTo(KScales.min(seg, 0, j));
            }
        }
    }
}

package org.jacap.simd;

import static org.jacap.simd.Layouts.BYTE;

import java.lang.foreign.MemorySegment;

/**
 * The 12-byte packed scales of Q4_K and Q5_K: eight 6-bit scales {@code sc[j]} and eight 6-bit
 * minimums {@code m[j]}, one pair per 32-element sub-block.
 * <pre>
 *   byte  0..3   bits 0-5: sc[0..3]       bits 6-7: high 2 bits of sc[4..7]
 *   byte  4..7   bits 0-5: m[0..3]        bits 6-7: high 2 bits of m[4..7]
 *   byte  8..11  bits 0-3: low of sc[4..7] bits 4-7: low 4 bits of m[4..7]
 * </pre>
 */
final class KScales {
    private KScales() {}

    static int scale(MemorySegment src, long scales, int j) {
        if (j < 4) {
            return src.get(BYTE, scales + j) & 63;
        }
        int lo = src.get(BYTE, scales + j + 4) & 0x0F;
        int hi = (src.get(BYTE, scales + j - 4) & 0xFF) >>> 6;
        return lo | hi << 4;
    }

    static int min(MemorySegment src, long scales, int j) {
        if (j < 4) {
            return src.get(BYTE, scales + j + 4) & 63;
        }
        int lo = (src.get(BYTE, scales + j + 4) & 0xFF) >>> 4;
        int hi = (src.get(BYTE, scales + j) & 0xFF) >>> 6;
        return lo | hi << 4;
    }

    /** Packs 6-bit scales and mins (each 0..63) into the 12-byte form. */
    static void pack(int[] sc, int[] m, byte[] out) {
        java.util.Arrays.fill(out, (byte) 0);
        for (int j = 0; j < 8; j++) {
            if (j < 4) {
                out[j] = (byte) sc[j];
                out[j + 4] = (byte) m[j];
            } else {
                out[j + 4] = (byte) ((sc[j] & 0x0F) | ((m[j] & 0x0F) << 4));
                out[j - 4] |= (byte) ((sc[j] >>> 4) << 6);
                out[j] |= (byte) ((m[j] >>> 4) << 6);
            }
        }
    }
}

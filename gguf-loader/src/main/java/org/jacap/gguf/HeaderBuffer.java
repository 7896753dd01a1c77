package org.jacap.gguf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable little-endian byte buffer for the GGUF header (metadata and tensor infos). */
final class HeaderBuffer {
    private byte[] bytes = new byte[4096];
    private int size;

    int size() {
        return size;
    }

    byte[] array() {
        return bytes;
    }

    private void ensure(int more) {
        if (more > Integer.MAX_VALUE - 16 - size) {
            throw new IllegalStateException("GGUF header larger than 2 GiB");
        }
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int)
                    Math.min(Integer.MAX_VALUE - 16L, Math.max(size + (long) more, 2L * bytes.length)));
        }
    }

    void u8(int v) {
        ensure(1);
        bytes[size++] = (byte) v;
    }

    void u16(int v) {
        ensure(2);
        bytes[size++] = (byte) v;
        bytes[size++] = (byte) (v >>> 8);
    }

    void u32(int v) {
        ensure(4);
        for (int i = 0; i < 32; i += 8) {
            bytes[size++] = (byte) (v >>> i);
        }
    }

    void u64(long v) {
        ensure(8);
        for (int i = 0; i < 64; i += 8) {
            bytes[size++] = (byte) (v >>> i);
        }
    }

    /** u64 byte length, then the UTF-8 bytes. */
    void string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        u64(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
    }

    void zeros(int n) {
        ensure(n);
        size += n; // the array is zero beyond size: it only grows
    }
}

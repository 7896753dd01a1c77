package org.jacap.gguf;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Writes GGUF fields by hand, valid or not, for hostile-input tests; {@link #mark()} is the next field's offset. */
final class RawGguf {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static RawGguf header(int version, long tensorCount, long kvCount) {
        return new RawGguf()
                .raw("GGUF".getBytes(StandardCharsets.US_ASCII))
                .u32(version)
                .u64(tensorCount)
                .u64(kvCount);
    }

    long mark() {
        return out.size();
    }

    RawGguf u8(int v) {
        out.write(v);
        return this;
    }

    RawGguf u32(long v) {
        for (int i = 0; i < 32; i += 8) {
            out.write((int) (v >>> i));
        }
        return this;
    }

    RawGguf u64(long v) {
        for (int i = 0; i < 64; i += 8) {
            out.write((int) (v >>> i));
        }
        return this;
    }

    RawGguf str(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return u64(b.length).raw(b);
    }

    RawGguf raw(byte[] b) {
        out.writeBytes(b);
        return this;
    }

    RawGguf zeros(int n) {
        return raw(new byte[n]);
    }

    /** Zeros up to the next multiple of {@code alignment}. */
    RawGguf pad(int alignment) {
        return zeros((alignment - out.size() % alignment) % alignment);
    }

    /** A metadata entry with a scalar UINT32 value. */
    RawGguf kvU32(String key, long v) {
        return str(key).u32(GgufValueType.UINT32.id()).u32(v);
    }

    RawGguf kvString(String key, String v) {
        return str(key).u32(GgufValueType.STRING.id()).str(v);
    }

    /** A tensor info: name, rank, dims, ggml type id, data offset. */
    RawGguf tensor(String name, long[] dims, int typeId, long offset) {
        str(name).u32(dims.length);
        for (long d : dims) {
            u64(d);
        }
        return u32(typeId).u64(offset);
    }

    byte[] bytes() {
        return out.toByteArray();
    }
}

package org.jacap.bench.reliability;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jacap.gguf.GgufValueType;

/**
 * Where the numbers of a valid GGUF header are: counts, lengths, types, dimensions, offsets and
 * every scalar metadata value (with its key), so that mutations can hit exactly those bytes.
 */
final class HeaderFields {
    /** A little-endian field: offset, width in bytes, whether it holds a float, and a label. */
    record Field(long offset, int width, boolean floating, String label) {}

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Per array, at most this many element fields (a vocabulary holds 100k strings). */
    private static final int MAX_ELEMENT_FIELDS = 32;

    private final MemorySegment seg;
    private final List<Field> fields = new ArrayList<>();
    private long pos;

    private HeaderFields(MemorySegment seg) {
        this.seg = seg;
    }

    /** The fields of {@code image}, which must parse. */
    static List<Field> of(MemorySegment image) {
        HeaderFields h = new HeaderFields(image);
        h.walk();
        return List.copyOf(h.fields);
    }

    private void walk() {
        add(4, 4, false, "version");
        add(8, 8, false, "tensor count");
        add(16, 8, false, "metadata count");
        long tensors = seg.get(LONG, 8);
        long kvs = seg.get(LONG, 16);
        pos = 24;
        for (long i = 0; i < kvs; i++) {
            String key = string("key length");
            value(u32("value type of " + key), key, 0);
        }
        for (long i = 0; i < tensors; i++) {
            String name = string("tensor name length");
            int rank = u32("rank of " + name);
            for (int d = 0; d < rank; d++) {
                u64("dimension " + d + " of " + name);
            }
            u32("type of " + name);
            u64("data offset of " + name);
        }
    }

    private void value(int type, String key, int depth) {
        switch (GgufValueType.fromId(type)) {
            case UINT8, INT8, BOOL -> scalar(1, false, key);
            case UINT16, INT16 -> scalar(2, false, key);
            case UINT32, INT32 -> scalar(4, false, key);
            case FLOAT32 -> scalar(4, true, key);
            case UINT64, INT64 -> scalar(8, false, key);
            case FLOAT64 -> scalar(8, true, key);
            case STRING -> string("string length of " + key);
            case ARRAY -> {
                int elementType = u32("element type of " + key);
                long n = u64("array length of " + key);
                for (long i = 0; i < n; i++) {
                    if (i < MAX_ELEMENT_FIELDS || GgufValueType.fromId(elementType) != GgufValueType.STRING) {
                        value(elementType, key + "[" + i + "]", depth + 1);
                    } else {
                        pos += 8 + seg.get(LONG, pos); // skip the rest of a long string array quickly
                    }
                }
            }
        }
    }

    private void scalar(int width, boolean floating, String key) {
        if (!key.contains("[") || floating) { // per-element ints (token types) are many and dull
            add(pos, width, floating, "value of " + key);
        }
        pos += width;
    }

    private String string(String label) {
        long len = seg.get(LONG, pos);
        add(pos, 8, false, label);
        byte[] b = seg.asSlice(pos + 8, len).toArray(ValueLayout.JAVA_BYTE);
        pos += 8 + len;
        return new String(b, StandardCharsets.UTF_8);
    }

    private int u32(String label) {
        add(pos, 4, false, label);
        int v = seg.get(INT, pos);
        pos += 4;
        return v;
    }

    private long u64(String label) {
        add(pos, 8, false, label);
        long v = seg.get(LONG, pos);
        pos += 8;
        return v;
    }

    private void add(long at, int width, boolean floating, String label) {
        fields.add(new Field(at, width, floating, label));
    }
}

package org.jacap.gguf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Walks a valid GGUF image and records where its length, count, type and offset fields are, so the
 * fuzzer can hit exactly those bytes with extreme values. Assumes the image parses.
 */
final class GgufFieldMap {
    /** A little-endian integer field: where it is, its width in bytes, and what it holds. */
    record Field(long offset, int width, String kind) {}

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Per array, record at most this many element-length fields (vocabularies hold 100k strings). */
    private static final int MAX_ELEMENT_FIELDS = 64;

    private final MemorySegment seg;
    private final List<Field> fields = new ArrayList<>();
    private long pos;

    private GgufFieldMap(MemorySegment seg) {
        this.seg = seg;
    }

    static List<Field> of(byte[] image) {
        GgufFieldMap m = new GgufFieldMap(MemorySegment.ofArray(image));
        m.walk();
        return List.copyOf(m.fields);
    }

    private void walk() {
        field(4, 4, "version");
        field(8, 8, "tensor count");
        long nTensors = seg.get(LONG, 8);
        field(16, 8, "metadata count");
        long nKv = seg.get(LONG, 16);
        pos = 24;
        for (long i = 0; i < nKv; i++) {
            string("key length", true);
            int type = u32("value type");
            value(type, 0);
        }
        for (long i = 0; i < nTensors; i++) {
            string("tensor name length", true);
            int rank = u32("rank");
            for (int d = 0; d < rank; d++) {
                u64("dimension");
            }
            u32("ggml type");
            u64("data offset");
        }
    }

    private void value(int type, int depth) {
        switch (GgufValueType.fromId(type)) {
            case UINT8, INT8, BOOL -> pos += 1;
            case UINT16, INT16 -> pos += 2;
            case UINT32, INT32, FLOAT32 -> pos += 4;
            case UINT64, INT64, FLOAT64 -> pos += 8;
            case STRING -> string("string length", true);
            case ARRAY -> {
                int et = u32("element type");
                long n = u64("array length");
                for (long i = 0; i < n; i++) {
                    if (et == GgufValueType.STRING.id()) {
                        string("element length", i < MAX_ELEMENT_FIELDS);
                    } else {
                        value(et, depth + 1);
                    }
                }
            }
        }
    }

    private void string(String kind, boolean record) {
        long len = seg.get(LONG, pos);
        if (record) {
            field(pos, 8, kind);
        }
        pos += 8 + len;
    }

    private int u32(String kind) {
        field(pos, 4, kind);
        int v = seg.get(INT, pos);
        pos += 4;
        return v;
    }

    private long u64(String kind) {
        field(pos, 8, kind);
        long v = seg.get(LONG, pos);
        pos += 8;
        return v;
    }

    private void field(long at, int width, String kind) {
        fields.add(new Field(at, width, kind));
    }
}

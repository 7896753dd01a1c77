package org.jacap.gguf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses the header, metadata and tensor infos of a mapped GGUF file. Every length and count is
 * checked against the bytes that remain before it is used, so a hostile file fails with a
 * {@link GgufFormatException} naming the offset instead of allocating or reading out of bounds.
 */
final class GgufReader {
    static final int MAGIC = 0x46554747; // "GGUF" read as little-endian int
    static final int DEFAULT_ALIGNMENT = 32;
    static final int MAX_DIMS = 4;
    private static final int MAX_ARRAY_DEPTH = 8;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** What the header section holds. */
    record Parsed(
            int version,
            GgufMetadata metadata,
            List<GgufTensorInfo> tensors,
            int alignment,
            long dataStart,
            List<String> warnings) {}

    private final MemorySegment seg;
    private final long size;
    private long pos;
    private final List<String> warnings = new ArrayList<>();

    private GgufReader(MemorySegment seg) {
        this.seg = seg;
        this.size = seg.byteSize();
    }

    static Parsed parse(MemorySegment seg) {
        return new GgufReader(seg).parse();
    }

    private Parsed parse() {
        need(4, "the GGUF magic");
        int magic = seg.get(INT, 0);
        if (magic != MAGIC) {
            throw new GgufFormatException(0, String.format("not a GGUF file (magic 0x%08x, expected \"GGUF\")", magic));
        }
        pos = 4;
        long versionAt = pos;
        int version = readInt("the version");
        if (version != 2 && version != 3) {
            throw new GgufFormatException(versionAt, "unsupported GGUF version " + version + " (supported: 2, 3)");
        }
        long tensorCountAt = pos;
        long tensorCount = readLong("the tensor count");
        long kvCountAt = pos;
        long kvCount = readLong("the metadata count");
        // Each metadata entry takes at least 8 (key length) + 4 (type) + 1 bytes; a tensor info at least 8 + 4 + 4 + 8.
        if (kvCount < 0 || kvCount > remaining() / 13) {
            throw new GgufFormatException(kvCountAt, "metadata count " + Long.toUnsignedString(kvCount) + " cannot fit in the " + remaining() + " bytes left");
        }
        if (tensorCount < 0 || tensorCount > remaining() / 24) {
            throw new GgufFormatException(tensorCountAt, "tensor count " + Long.toUnsignedString(tensorCount) + " cannot fit in the " + remaining() + " bytes left");
        }

        Map<String, GgufValue> kv = new LinkedHashMap<>();
        for (long i = 0; i < kvCount; i++) {
            long keyAt = pos;
            String key = readString("metadata key #" + i);
            long typeAt = pos;
            GgufValueType type = readValueType("the type of metadata key '" + key + "'", typeAt);
            GgufValue value = readValue(type, key, 0);
            GgufValue previous = kv.putIfAbsent(key, value);
            if (previous != null) {
                if (!GgufValue.sameContent(previous, value)) {
                    throw new GgufFormatException(keyAt, "metadata key '" + key + "' appears twice with different values");
                }
                warnings.add("metadata key '" + key + "' appears twice (same value)");
            }
        }
        GgufMetadata metadata = new GgufMetadata(kv);

        int alignment = DEFAULT_ALIGNMENT;
        if (metadata.contains("general.alignment")) {
            long a;
            try {
                a = metadata.getLong("general.alignment");
            } catch (GgufMetadataException e) {
                throw new GgufFormatException(-1, "general.alignment must be an integer");
            }
            if (a <= 0 || a > (1 << 30) || (a & (a - 1)) != 0) {
                throw new GgufFormatException("bad GGUF: general.alignment " + a + " is not a power of two");
            }
            alignment = (int) a;
        }

        List<GgufTensorInfo> tensors = new ArrayList<>((int) tensorCount);
        Set<String> names = new HashSet<>();
        for (long i = 0; i < tensorCount; i++) {
            long infoAt = pos;
            String name = readString("the name of tensor #" + i);
            if (!names.add(name)) {
                throw new GgufFormatException(infoAt, "duplicate tensor name '" + name + "'");
            }
            long nDimsAt = pos;
            int nDims = readInt("the rank of tensor '" + name + "'");
            if (nDims < 0 || nDims > MAX_DIMS) {
                throw new GgufFormatException(nDimsAt, "tensor '" + name + "' has rank " + nDims + " (at most " + MAX_DIMS + ")");
            }
            long[] dims = new long[nDims];
            long elements = 1;
            for (int d = 0; d < nDims; d++) {
                long dimAt = pos;
                dims[d] = readLong("dimension " + d + " of tensor '" + name + "'");
                if (dims[d] <= 0) {
                    throw new GgufFormatException(dimAt, "tensor '" + name + "' dimension " + d + " is " + Long.toUnsignedString(dims[d]));
                }
                if (elements > Long.MAX_VALUE / dims[d]) {
                    throw new GgufFormatException(dimAt, "tensor '" + name + "' element count overflows");
                }
                elements *= dims[d];
            }
            long typeAt = pos;
            int typeId = readInt("the type of tensor '" + name + "'");
            GgmlType type = GgmlType.fromId(typeId);
            if (type == null) {
                throw new GgufFormatException(typeAt, "tensor '" + name + "' has unknown ggml type id " + typeId);
            }
            long offsetAt = pos;
            long offset = readLong("the offset of tensor '" + name + "'");
            if (offset < 0 || offset % alignment != 0) {
                throw new GgufFormatException(offsetAt, "tensor '" + name + "' offset " + Long.toUnsignedString(offset) + " is not a multiple of the alignment " + alignment);
            }
            long ne0 = nDims == 0 ? 1 : dims[0];
            long rowBytes = type.bytesFor(ne0);
            if (rowBytes < 0) {
                throw new GgufFormatException(infoAt, "tensor '" + name + "' width " + ne0 + " is not a multiple of the " + type + " block size " + type.blockSize());
            }
            long rows = elements / ne0;
            if (rowBytes != 0 && rows > Long.MAX_VALUE / rowBytes) {
                throw new GgufFormatException(infoAt, "tensor '" + name + "' byte size overflows");
            }
            tensors.add(new GgufTensorInfo(name, dims, type, offset, rowBytes * rows));
        }

        long dataStart = alignUp(pos, alignment);
        for (GgufTensorInfo t : tensors) {
            long start = dataStart + t.offset();
            if (start < dataStart || start > size || t.byteSize() > size - start) {
                throw new GgufFormatException(start < 0 ? pos : start, "tensor '" + t.name() + "' (" + t.byteSize() + " bytes at data offset " + t.offset() + ") extends past the end of the file (" + size + " bytes)");
            }
        }
        return new Parsed(version, metadata, List.copyOf(tensors), alignment, dataStart, List.copyOf(warnings));
    }

    private static long alignUp(long x, long a) {
        return (x + a - 1) / a * a;
    }

    private long remaining() {
        return size - pos;
    }

    private void need(long bytes, String what) {
        if (bytes < 0 || bytes > size - pos) {
            throw new GgufFormatException(pos, "file ends while reading " + what + " (needs " + Long.toUnsignedString(bytes) + " bytes, " + (size - pos) + " left)");
        }
    }

    private int readInt(String what) {
        need(4, what);
        int v = seg.get(INT, pos);
        pos += 4;
        return v;
    }

    private long readLong(String what) {
        need(8, what);
        long v = seg.get(LONG, pos);
        pos += 8;
        return v;
    }

    private GgufValueType readValueType(String what, long at) {
        int id = readInt(what);
        GgufValueType t = GgufValueType.fromId(id);
        if (t == null) {
            throw new GgufFormatException(at, "unknown metadata value type " + id + " for " + what.replace("the type of ", ""));
        }
        return t;
    }

    private String readString(String what) {
        long lenAt = pos;
        long len = readLong("the length of " + what);
        if (len < 0 || len > remaining() || len > Integer.MAX_VALUE - 16) {
            throw new GgufFormatException(lenAt, "string length " + Long.toUnsignedString(len) + " of " + what + " exceeds the " + remaining() + " bytes left");
        }
        byte[] bytes = new byte[(int) len];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, pos, bytes, 0, (int) len);
        pos += len;
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private GgufValue readValue(GgufValueType type, String key, int depth) {
        String what = "the value of '" + key + "'";
        return switch (type) {
            case UINT8 -> { need(1, what); long v = Byte.toUnsignedLong(seg.get(ValueLayout.JAVA_BYTE, pos)); pos += 1; yield new GgufValue.IntValue(type, v); }
            case INT8 -> { need(1, what); long v = seg.get(ValueLayout.JAVA_BYTE, pos); pos += 1; yield new GgufValue.IntValue(type, v); }
            case UINT16 -> { need(2, what); long v = Short.toUnsignedLong(seg.get(SHORT, pos)); pos += 2; yield new GgufValue.IntValue(type, v); }
            case INT16 -> { need(2, what); long v = seg.get(SHORT, pos); pos += 2; yield new GgufValue.IntValue(type, v); }
            case UINT32 -> new GgufValue.IntValue(type, Integer.toUnsignedLong(readInt(what)));
            case INT32 -> new GgufValue.IntValue(type, readInt(what));
            case UINT64, INT64 -> new GgufValue.IntValue(type, readLong(what));
            case FLOAT32 -> { need(4, what); double v = seg.get(FLOAT, pos); pos += 4; yield new GgufValue.FloatValue(type, v); }
            case FLOAT64 -> { need(8, what); double v = seg.get(DOUBLE, pos); pos += 8; yield new GgufValue.FloatValue(type, v); }
            case BOOL -> {
                need(1, what);
                byte b = seg.get(ValueLayout.JAVA_BYTE, pos);
                if (b != 0 && b != 1) {
                    throw new GgufFormatException(pos, "bool value of '" + key + "' is " + b + " (expected 0 or 1)");
                }
                pos += 1;
                yield new GgufValue.BoolValue(b == 1);
            }
            case STRING -> new GgufValue.StringValue(readString(what));
            case ARRAY -> readArray(key, depth);
        };
    }

    private GgufValue.ArrayValue readArray(String key, int depth) {
        if (depth >= MAX_ARRAY_DEPTH) {
            throw new GgufFormatException(pos, "arrays nested deeper than " + MAX_ARRAY_DEPTH + " in '" + key + "'");
        }
        long typeAt = pos;
        GgufValueType et = readValueType("the element type of '" + key + "'", typeAt);
        long lenAt = pos;
        long len = readLong("the array length of '" + key + "'");
        if (len < 0 || len > remaining() / et.minBytes() || len > Integer.MAX_VALUE - 16) {
            throw new GgufFormatException(lenAt, "array length " + Long.toUnsignedString(len) + " of '" + key + "' cannot fit in the " + remaining() + " bytes left");
        }
        int n = (int) len;
        switch (et) {
            case STRING -> {
                String[] v = new String[n];
                for (int i = 0; i < n; i++) {
                    v[i] = readString("element " + i + " of '" + key + "'");
                }
                return GgufValue.ArrayValue.ofStrings(v);
            }
            case ARRAY -> {
                GgufValue.ArrayValue[] v = new GgufValue.ArrayValue[n];
                for (int i = 0; i < n; i++) {
                    v[i] = readArray(key, depth + 1);
                }
                return GgufValue.ArrayValue.ofArrays(v);
            }
            case BOOL -> {
                boolean[] v = new boolean[n];
                for (int i = 0; i < n; i++) {
                    v[i] = ((GgufValue.BoolValue) readValue(et, key, depth)).value();
                }
                return GgufValue.ArrayValue.ofBools(v);
            }
            case FLOAT32 -> {
                double[] v = new double[n];
                for (int i = 0; i < n; i++) {
                    v[i] = seg.get(FLOAT, pos + 4L * i);
                }
                pos += 4L * n;
                return GgufValue.ArrayValue.ofDoubles(et, v);
            }
            case FLOAT64 -> {
                double[] v = new double[n];
                for (int i = 0; i < n; i++) {
                    v[i] = seg.get(DOUBLE, pos + 8L * i);
                }
                pos += 8L * n;
                return GgufValue.ArrayValue.ofDoubles(et, v);
            }
            default -> {
                long[] v = new long[n];
                for (int i = 0; i < n; i++) {
                    v[i] = ((GgufValue.IntValue) readValue(et, key, depth)).value();
                }
                return GgufValue.ArrayValue.ofLongs(et, v);
            }
        }
    }
}

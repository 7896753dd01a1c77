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
 * checked against the bytes that remain before it is used, and the heap the parsed header will
 * take is budgeted, so a hostile file fails with a {@link GgufFormatException} naming the offset
 * instead of allocating, looping or reading out of bounds.
 *
 * <pre>
 * header   : magic "GGUF" | u32 version | u64 tensor count | u64 metadata count
 * metadata : (string key | u32 value type | value)*       string = u64 length | UTF-8 bytes
 *            array value = u32 element type | u64 length | elements
 * infos    : (string name | u32 rank | u64 dims[rank] | u32 ggml type | u64 data offset)*
 * padding  : zeros up to general.alignment (default 32)
 * data     : tensor bytes, each at its offset from the start of this section
 * </pre>
 */
final class GgufReader {
    static final int MAGIC = 0x46554747; // "GGUF" read as little-endian int
    static final int DEFAULT_ALIGNMENT = 32;
    static final String ALIGNMENT_KEY = "general.alignment";
    static final int MAX_DIMS = 4;
    static final int MAX_ARRAY_DEPTH = 8;
    /** Heap the parsed header may take. The largest real vocabularies (~260k tokens plus merges) need under 100 MiB. */
    static final long HEAP_LIMIT = 512L << 20;

    // Estimated heap cost of parsed items (object headers, references, array headers).
    private static final long STRING_COST = 64;
    private static final long NESTED_ARRAY_COST = 96;
    private static final long ENTRY_COST = 128;
    private static final long TENSOR_COST = 256;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat FLOAT =
            ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble DOUBLE =
            ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** What the header section holds. */
    record Parsed(
            int version,
            GgufMetadata metadata,
            List<GgufTensorInfo> tensors,
            int alignment,
            long dataStart,
            List<String> warnings) {}

    /** A tensor info and where its data-offset field sits, to name that byte if the data is missing. */
    private record ParsedTensor(GgufTensorInfo info, long offsetFieldAt) {}

    /** Names element {@code index} of array {@code key} in messages; built only when a message is. */
    private record Element(String key, long index) {
        @Override
        public String toString() {
            return "element " + index + " of " + quote(key);
        }
    }

    private final MemorySegment seg;
    private final long size;
    private long pos;
    private long heapUsed;
    private final List<String> warnings = new ArrayList<>();

    private GgufReader(MemorySegment seg) {
        this.seg = seg;
        this.size = seg.byteSize();
    }

    static Parsed parse(MemorySegment seg) {
        return new GgufReader(seg).parse();
    }

    private Parsed parse() {
        if (size == 0) {
            throw new GgufFormatException(0, "empty file");
        }
        int version = readHeader();
        long tensorCountAt = pos;
        long tensorCount = readLong("the tensor count");
        long kvCountAt = pos;
        long kvCount = readLong("the metadata count");
        // A metadata entry takes at least 8 (key length) + 4 (type) + 1 bytes; a tensor info at least 8 + 4 + 4 + 8.
        if (kvCount < 0 || kvCount > remaining() / 13) {
            throw new GgufFormatException(
                    kvCountAt,
                    "metadata count " + Long.toUnsignedString(kvCount) + " cannot fit in the " + remaining()
                            + " bytes left");
        }
        if (tensorCount < 0 || tensorCount > remaining() / 24) {
            throw new GgufFormatException(
                    tensorCountAt,
                    "tensor count " + Long.toUnsignedString(tensorCount) + " cannot fit in the " + remaining()
                            + " bytes left");
        }
        Map<String, GgufValue> kv = new LinkedHashMap<>();
        long alignmentAt = readMetadata(kvCount, kv);
        GgufMetadata metadata = new GgufMetadata(kv);
        int alignment = alignment(metadata, alignmentAt);
        List<ParsedTensor> infos = readTensorInfos(tensorCount, alignment);
        long dataStart = alignUp(pos, alignment);
        List<GgufTensorInfo> tensors = new ArrayList<>(infos.size());
        for (ParsedTensor p : infos) {
            checkInsideFile(p, dataStart);
            tensors.add(p.info());
        }
        checkDisjoint(infos);
        return new Parsed(version, metadata, List.copyOf(tensors), alignment, dataStart, List.copyOf(warnings));
    }

    private int readHeader() {
        need(4, "the GGUF magic");
        int magic = seg.get(INT, 0);
        if (magic != MAGIC) {
            throw new GgufFormatException(0, "not a GGUF file (starts with " + hexBytes(0, 4) + ", expected \"GGUF\")");
        }
        pos = 4;
        long versionAt = pos;
        int version = readInt("the version");
        if (version == 2 || version == 3) {
            return version;
        }
        if (version == 1) {
            throw new GgufFormatException(
                    versionAt, "GGUF version 1 is no longer supported (re-convert the model with a current llama.cpp)");
        }
        if (version != 0 && (version & 0xFFFF) == 0) {
            throw new GgufFormatException(
                    versionAt,
                    "version field " + hexBytes(versionAt, 4)
                            + " looks byte-swapped: big-endian GGUF files are not supported");
        }
        throw new GgufFormatException(
                versionAt, "unsupported GGUF version " + Integer.toUnsignedString(version) + " (supported: 2, 3)");
    }

    /** Reads the key/value section into {@code kv}; returns where general.alignment's type field is, or -1. */
    private long readMetadata(long kvCount, Map<String, GgufValue> kv) {
        long alignmentAt = -1;
        for (long i = 0; i < kvCount; i++) {
            long keyAt = pos;
            String key = readString("metadata key #" + i);
            charge(ENTRY_COST + key.length(), keyAt, "metadata key " + quote(key));
            long typeAt = pos;
            GgufValueType type = readValueType("the type of metadata key " + quote(key), typeAt);
            GgufValue value = readValue(type, key, 0);
            GgufValue previous = kv.putIfAbsent(key, value);
            if (previous != null) {
                if (!GgufValue.sameContent(previous, value)) {
                    throw new GgufFormatException(
                            keyAt, "metadata key " + quote(key) + " appears twice with different values");
                }
                // Older converters wrote some keys twice (e.g. general.file_type); llama.cpp now refuses such files.
                warnings.add("metadata key " + quote(key) + " appears twice (same value) at byte " + keyAt);
            }
            if (key.equals(ALIGNMENT_KEY)) {
                alignmentAt = typeAt;
            }
        }
        return alignmentAt;
    }

    private static int alignment(GgufMetadata metadata, long at) {
        GgufValue v = metadata.get(ALIGNMENT_KEY).orElse(null);
        if (v == null) {
            return DEFAULT_ALIGNMENT;
        }
        if (!(v instanceof GgufValue.IntValue i)) {
            throw new GgufFormatException(at, ALIGNMENT_KEY + " has type " + describeType(v) + ", expected an integer");
        }
        long a = i.value();
        if (a <= 0 || a > (1 << 30) || (a & (a - 1)) != 0) {
            throw new GgufFormatException(
                    at, ALIGNMENT_KEY + " is " + a + ", expected a power of two between 1 and 2^30");
        }
        return (int) a;
    }

    private List<ParsedTensor> readTensorInfos(long tensorCount, int alignment) {
        // Grows with what is actually parsed: the count alone is not trusted with an allocation.
        List<ParsedTensor> infos = new ArrayList<>((int) Math.min(tensorCount, 1024));
        Set<String> names = new HashSet<>();
        for (long i = 0; i < tensorCount; i++) {
            long infoAt = pos;
            String name = readString("the name of tensor #" + i);
            charge(TENSOR_COST + name.length(), infoAt, "tensor " + quote(name));
            if (!names.add(name)) {
                throw new GgufFormatException(infoAt, "duplicate tensor name " + quote(name));
            }
            String tensor = "tensor " + quote(name);
            long rankAt = pos;
            int rank = readInt("the rank of " + tensor);
            if (rank < 0 || rank > MAX_DIMS) {
                throw new GgufFormatException(
                        rankAt, tensor + " has rank " + Integer.toUnsignedString(rank) + " (at most " + MAX_DIMS + ")");
            }
            long[] dims = new long[rank];
            long elements = 1;
            for (int d = 0; d < rank; d++) {
                long dimAt = pos;
                dims[d] = readLong("dimension " + d + " of " + tensor);
                if (dims[d] <= 0) {
                    throw new GgufFormatException(
                            dimAt, tensor + " dimension " + d + " is " + dims[d] + " (must be positive)");
                }
                if (elements > Long.MAX_VALUE / dims[d]) {
                    throw new GgufFormatException(dimAt, tensor + " element count overflows a 64-bit integer");
                }
                elements *= dims[d];
            }
            long typeAt = pos;
            int typeId = readInt("the type of " + tensor);
            GgmlType type = GgmlType.fromId(typeId);
            if (type == null) {
                throw new GgufFormatException(
                        typeAt, tensor + " has unknown ggml type id " + Integer.toUnsignedString(typeId));
            }
            long offsetAt = pos;
            long offset = readLong("the data offset of " + tensor);
            if (offset < 0 || offset % alignment != 0) {
                throw new GgufFormatException(
                        offsetAt,
                        tensor + " data offset " + Long.toUnsignedString(offset)
                                + " is not a multiple of the alignment " + alignment);
            }
            long width = rank == 0 ? 1 : dims[0];
            long rowBytes = type.bytesFor(width);
            if (rowBytes < 0) {
                throw new GgufFormatException(
                        typeAt,
                        tensor + " width " + width + " is not a multiple of the " + type + " block size "
                                + type.blockSize());
            }
            long rows = elements / width;
            if (rows > Long.MAX_VALUE / rowBytes) {
                throw new GgufFormatException(typeAt, tensor + " byte size overflows a 64-bit integer");
            }
            infos.add(new ParsedTensor(new GgufTensorInfo(name, dims, type, offset, rowBytes * rows), offsetAt));
        }
        return infos;
    }

    /**
     * Tensors whose bytes overlap would alias each other's weights (llama.cpp refuses them too):
     * the first tensor, in offset order, that starts inside the previous one is named.
     */
    private static void checkDisjoint(List<ParsedTensor> infos) {
        List<ParsedTensor> byOffset = new ArrayList<>(infos);
        byOffset.sort(java.util.Comparator.comparingLong(p -> p.info().offset()));
        for (int i = 1; i < byOffset.size(); i++) {
            GgufTensorInfo prev = byOffset.get(i - 1).info();
            GgufTensorInfo t = byOffset.get(i).info();
            if (t.offset() < prev.offset() + prev.byteSize()) { // both lie inside the file: no overflow
                throw new GgufFormatException(
                        byOffset.get(i).offsetFieldAt(),
                        "tensor " + quote(t.name()) + " (data offset " + t.offset() + ") overlaps tensor "
                                + quote(prev.name()) + " (" + prev.byteSize() + " bytes at data offset "
                                + prev.offset() + ")");
            }
        }
    }

    private void checkInsideFile(ParsedTensor p, long dataStart) {
        GgufTensorInfo t = p.info();
        long room = size - dataStart; // negative when the header ends in the alignment padding
        if (t.offset() > room || t.byteSize() > room - t.offset()) {
            throw new GgufFormatException(
                    p.offsetFieldAt(),
                    "tensor " + quote(t.name()) + " (" + t.byteSize() + " bytes at data offset " + t.offset()
                            + ", file byte " + Long.toUnsignedString(dataStart + t.offset())
                            + ") extends past the end of the file (" + size + " bytes)");
        }
    }

    private GgufValue readValue(GgufValueType type, String key, int depth) {
        return switch (type) {
            case UINT8 -> new GgufValue.IntValue(type, Byte.toUnsignedLong(readByte(key)));
            case INT8 -> new GgufValue.IntValue(type, readByte(key));
            case UINT16 -> new GgufValue.IntValue(type, Short.toUnsignedLong(readShort(key)));
            case INT16 -> new GgufValue.IntValue(type, readShort(key));
            case UINT32 -> new GgufValue.IntValue(type, Integer.toUnsignedLong(readInt(valueOf(key))));
            case INT32 -> new GgufValue.IntValue(type, readInt(valueOf(key)));
            case UINT64, INT64 -> new GgufValue.IntValue(type, readLong(valueOf(key)));
            case FLOAT32 -> new GgufValue.FloatValue(type, Float.intBitsToFloat(readInt(valueOf(key))));
            case FLOAT64 -> new GgufValue.FloatValue(type, Double.longBitsToDouble(readLong(valueOf(key))));
            case BOOL -> {
                need(1, valueOf(key));
                yield new GgufValue.BoolValue(boolAt(key, pos++));
            }
            case STRING -> new GgufValue.StringValue(readString(valueOf(key)));
            case ARRAY -> readArray(key, depth);
        };
    }

    private GgufValue.ArrayValue readArray(String key, int depth) {
        if (depth >= MAX_ARRAY_DEPTH) {
            throw new GgufFormatException(
                    pos, "arrays nested deeper than " + MAX_ARRAY_DEPTH + " levels in " + quote(key));
        }
        long typeAt = pos;
        GgufValueType et = readValueType("the element type of " + quote(key), typeAt);
        long lenAt = pos;
        long len = readLong("the array length of " + quote(key));
        if (len < 0 || len > remaining() / et.minBytes() || len > Integer.MAX_VALUE - 16) {
            throw new GgufFormatException(
                    lenAt,
                    "array length " + Long.toUnsignedString(len) + " of " + quote(key) + " (" + et
                            + ") cannot fit in the " + remaining() + " bytes left");
        }
        int n = (int) len;
        long start = pos;
        charge(
                switch (et) {
                    case STRING -> STRING_COST * n;
                    case ARRAY -> NESTED_ARRAY_COST * n;
                    case BOOL -> n;
                    default -> 8L * n;
                },
                lenAt,
                quote(key));
        // Fixed-size elements fit: the length check above bounded n * size by the bytes left.
        switch (et) {
            case STRING -> {
                String[] v = new String[n];
                for (int i = 0; i < n; i++) {
                    v[i] = readString(new Element(key, i));
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
                    v[i] = boolAt(key, start + i);
                }
                pos = start + n;
                return GgufValue.ArrayValue.ofBools(v);
            }
            case FLOAT32, FLOAT64 -> {
                double[] v = new double[n];
                for (int i = 0; i < n; i++) {
                    v[i] = et == GgufValueType.FLOAT32
                            ? seg.get(FLOAT, start + 4L * i)
                            : seg.get(DOUBLE, start + 8L * i);
                }
                pos = start + (long) et.minBytes() * n;
                return GgufValue.ArrayValue.ofDoubles(et, v);
            }
            default -> {
                long[] v = new long[n];
                for (int i = 0; i < n; i++) {
                    v[i] = switch (et) {
                        case UINT8 -> Byte.toUnsignedLong(seg.get(ValueLayout.JAVA_BYTE, start + i));
                        case INT8 -> seg.get(ValueLayout.JAVA_BYTE, start + i);
                        case UINT16 -> Short.toUnsignedLong(seg.get(SHORT, start + 2L * i));
                        case INT16 -> seg.get(SHORT, start + 2L * i);
                        case UINT32 -> Integer.toUnsignedLong(seg.get(INT, start + 4L * i));
                        case INT32 -> seg.get(INT, start + 4L * i);
                        default -> seg.get(LONG, start + 8L * i);
                    };
                }
                pos = start + (long) et.minBytes() * n;
                return GgufValue.ArrayValue.ofLongs(et, v);
            }
        }
    }

    private static String valueOf(String key) {
        return "the value of " + quote(key);
    }

    /** The bool at {@code at}, which the caller has checked is inside the file. */
    private boolean boolAt(String key, long at) {
        byte b = seg.get(ValueLayout.JAVA_BYTE, at);
        if (b != 0 && b != 1) {
            throw new GgufFormatException(at, "bool in " + quote(key) + " is " + b + " (expected 0 or 1)");
        }
        return b == 1;
    }

    private byte readByte(String key) {
        need(1, valueOf(key));
        return seg.get(ValueLayout.JAVA_BYTE, pos++);
    }

    private short readShort(String key) {
        need(2, valueOf(key));
        short v = seg.get(SHORT, pos);
        pos += 2;
        return v;
    }

    private int readInt(Object what) {
        need(4, what);
        int v = seg.get(INT, pos);
        pos += 4;
        return v;
    }

    private long readLong(Object what) {
        need(8, what);
        long v = seg.get(LONG, pos);
        pos += 8;
        return v;
    }

    private GgufValueType readValueType(String what, long at) {
        int id = readInt(what);
        GgufValueType t = GgufValueType.fromId(id);
        if (t == null) {
            throw new GgufFormatException(
                    at,
                    "unknown value type " + Integer.toUnsignedString(id) + " for " + what.replace("the type of ", ""));
        }
        return t;
    }

    private String readString(Object what) {
        long lenAt = pos;
        long len = readLong(what);
        if (len < 0 || len > remaining() || len > Integer.MAX_VALUE - 16) {
            throw new GgufFormatException(
                    lenAt,
                    "string length " + Long.toUnsignedString(len) + " of " + what + " exceeds the " + remaining()
                            + " bytes left");
        }
        charge(len, lenAt, what);
        byte[] bytes = new byte[(int) len];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, pos, bytes, 0, (int) len);
        pos += len;
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private void need(long bytes, Object what) {
        if (bytes > size - pos) {
            throw new GgufFormatException(
                    pos, "file ends while reading " + what + " (needs " + bytes + " bytes, " + (size - pos) + " left)");
        }
    }

    /** Counts the heap the parsed header will take; refuses a file whose header would exceed {@link #HEAP_LIMIT}. */
    private void charge(long bytes, long at, Object what) {
        heapUsed += bytes;
        if (heapUsed > HEAP_LIMIT) {
            throw new GgufFormatException(
                    at, "the header would take more than " + (HEAP_LIMIT >> 20) + " MiB of memory (at " + what + ")");
        }
    }

    private long remaining() {
        return size - pos;
    }

    private static long alignUp(long x, long a) {
        return (x + a - 1) / a * a;
    }

    private String hexBytes(long at, int n) {
        StringBuilder sb = new StringBuilder("0x");
        for (long i = at; i < at + n && i < size; i++) {
            sb.append(String.format("%02x", seg.get(ValueLayout.JAVA_BYTE, i)));
        }
        return sb.toString();
    }

    private static String describeType(GgufValue v) {
        return v instanceof GgufValue.ArrayValue a
                ? "ARRAY of " + a.elementType()
                : v.type().toString();
    }

    /**
     * A name from the file made safe for a one-line message: quoted, control characters escaped,
     * cut after 80 characters (a hostile key could otherwise hold newlines or megabytes).
     */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), 90) + 2).append('\'');
        for (int i = 0; i < s.length(); i++) {
            if (i == 80) {
                sb.append("…(").append(s.length()).append(" chars)");
                break;
            }
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                sb.append(String.format("\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('\'').toString();
    }
}

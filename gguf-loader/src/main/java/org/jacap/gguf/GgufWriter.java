package org.jacap.gguf;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Builds a GGUF v3 file: metadata in insertion order, tensor infos in insertion order, then the
 * tensor data laid out as llama.cpp lays it out (each tensor at the next multiple of
 * {@code general.alignment}, default 32, zero padding after every tensor). A file without
 * tensors has no data section and ends right after the metadata, as older converters wrote
 * vocab-only files.
 *
 * <p>Tensor bytes are only read while the file is written, one tensor at a time, so a
 * {@link TensorFiller} can produce files far larger than the heap. {@link #write(Path)} is atomic:
 * it writes a temporary file in the target folder and renames it, so a failure never leaves a
 * partial file behind. Not thread-safe.
 */
public final class GgufWriter {
    /** The GGUF version written. */
    public static final int VERSION = 3;
    /** llama.cpp refuses tensor names of GGML_MAX_NAME (64) bytes or more. */
    public static final int MAX_TENSOR_NAME_BYTES = 63;

    private static final int COPY_CHUNK = 1 << 20;

    /** Produces a tensor's bytes while the file is written; {@code dst} is exactly the tensor's byte size, zeroed. */
    @FunctionalInterface
    public interface TensorFiller {
        void fill(MemorySegment dst) throws IOException;
    }

    /** Where a tensor's bytes come from. */
    private sealed interface Source {}

    private record SegmentSource(MemorySegment bytes) implements Source {}

    private record FillerSource(TensorFiller filler) implements Source {}

    private record PendingTensor(String name, long[] dims, GgmlType type, long byteSize, Source source) {}

    /** Where everything goes: the encoded header (with the padding before the data section) and tensor offsets. */
    private record Layout(HeaderBuffer header, long[] offsets, long fileSize) {}

    /** Receives the file's bytes in order. */
    private interface Sink {
        void write(MemorySegment bytes) throws IOException;
    }

    private final Map<String, GgufValue> metadata = new LinkedHashMap<>();
    private final List<PendingTensor> tensors = new ArrayList<>();
    private final Set<String> tensorNames = new HashSet<>();

    /** A writer holding everything {@code file} holds: its metadata and its tensors (read from its mapping while writing). */
    public static GgufWriter copyOf(GgufFile file) {
        GgufWriter w = new GgufWriter();
        file.metadata().asMap().forEach(w::put);
        for (GgufTensorInfo t : file.tensors()) {
            w.addTensor(t.name(), t.dims(), t.type(), file.data(t));
        }
        return w;
    }

    // ---------------------------------------------------------------- metadata

    /**
     * Sets a metadata value. A new key goes after the existing ones; setting an existing key
     * replaces its value in place. {@code general.alignment} must be a UINT32 power of two (llama.cpp
     * reads it as u32) and decides the tensor layout.
     */
    public GgufWriter put(String key, GgufValue value) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("metadata key must not be empty");
        }
        if (value == null) {
            throw new IllegalArgumentException("metadata value of '" + key + "' is null");
        }
        checkValue(key, value, 0);
        if (key.equals(GgufReader.ALIGNMENT_KEY)) {
            long a = value instanceof GgufValue.IntValue i && i.type() == GgufValueType.UINT32 ? i.value() : -1;
            if (a <= 0 || a > (1 << 30) || (a & (a - 1)) != 0) {
                throw new IllegalArgumentException(key + " must be a UINT32 power of two up to 2^30, got " + value);
            }
        }
        metadata.put(key, value);
        return this;
    }

    public GgufWriter putString(String key, String value) {
        return put(key, new GgufValue.StringValue(value));
    }

    public GgufWriter putBool(String key, boolean value) {
        return put(key, new GgufValue.BoolValue(value));
    }

    public GgufWriter putUInt32(String key, long value) {
        return put(key, new GgufValue.IntValue(GgufValueType.UINT32, value));
    }

    public GgufWriter putInt32(String key, int value) {
        return put(key, new GgufValue.IntValue(GgufValueType.INT32, value));
    }

    public GgufWriter putUInt64(String key, long value) {
        return put(key, new GgufValue.IntValue(GgufValueType.UINT64, value));
    }

    public GgufWriter putFloat32(String key, float value) {
        return put(key, new GgufValue.FloatValue(GgufValueType.FLOAT32, value));
    }

    public GgufWriter putFloat64(String key, double value) {
        return put(key, new GgufValue.FloatValue(GgufValueType.FLOAT64, value));
    }

    public GgufWriter putStringArray(String key, List<String> values) {
        return put(key, GgufValue.ArrayValue.ofStrings(values.toArray(String[]::new)));
    }

    public GgufWriter putInt32Array(String key, int[] values) {
        long[] v = new long[values.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = values[i];
        }
        return put(key, GgufValue.ArrayValue.ofLongs(GgufValueType.INT32, v));
    }

    public GgufWriter putFloat32Array(String key, float[] values) {
        double[] v = new double[values.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = values[i];
        }
        return put(key, GgufValue.ArrayValue.ofDoubles(GgufValueType.FLOAT32, v));
    }

    /** The metadata as it will be written, in order. */
    public GgufMetadata metadata() {
        return new GgufMetadata(metadata);
    }

    /** Checks that a value can be written as its declared type, so a file is never written with a silently truncated value. */
    private static void checkValue(String key, GgufValue value, int depth) {
        switch (value) {
            case GgufValue.IntValue i -> checkInt(key, i.type(), i.value());
            case GgufValue.FloatValue f -> {
                if (!f.type().isFloat()) {
                    throw new IllegalArgumentException(
                            "metadata '" + key + "': a float value cannot have type " + f.type());
                }
            }
            case GgufValue.StringValue s -> {
                if (s.value() == null) {
                    throw new IllegalArgumentException("metadata '" + key + "': string is null");
                }
            }
            case GgufValue.BoolValue _ -> {}
            case GgufValue.ArrayValue a -> checkArray(key, a, depth);
        }
    }

    private static void checkArray(String key, GgufValue.ArrayValue a, int depth) {
        if (depth >= GgufReader.MAX_ARRAY_DEPTH) {
            throw new IllegalArgumentException(
                    "metadata '" + key + "': arrays nested deeper than " + GgufReader.MAX_ARRAY_DEPTH + " levels");
        }
        GgufValueType et = a.elementType();
        Object backing = switch (et) {
            case FLOAT32, FLOAT64 -> a.doubles();
            case BOOL -> a.bools();
            case STRING -> a.strings();
            case ARRAY -> a.arrays();
            default -> a.longs();
        };
        if (backing == null) {
            throw new IllegalArgumentException(
                    "metadata '" + key + "': array of " + et + " has no " + et + " elements array");
        }
        switch (et) {
            case STRING -> {
                for (String s : a.strings()) {
                    if (s == null) {
                        throw new IllegalArgumentException("metadata '" + key + "': string array holds null");
                    }
                }
            }
            case ARRAY -> {
                for (GgufValue.ArrayValue inner : a.arrays()) {
                    if (inner == null) {
                        throw new IllegalArgumentException("metadata '" + key + "': array of arrays holds null");
                    }
                    checkArray(key, inner, depth + 1);
                }
            }
            case FLOAT32, FLOAT64, BOOL -> {}
            default -> {
                for (long v : a.longs()) {
                    checkInt(key, et, v);
                }
            }
        }
    }

    private static void checkInt(String key, GgufValueType type, long v) {
        boolean ok = switch (type) {
            case UINT8 -> v >= 0 && v <= 0xFF;
            case INT8 -> v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE;
            case UINT16 -> v >= 0 && v <= 0xFFFF;
            case INT16 -> v >= Short.MIN_VALUE && v <= Short.MAX_VALUE;
            case UINT32 -> v >= 0 && v <= 0xFFFF_FFFFL;
            case INT32 -> v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
            case UINT64, INT64 -> true; // UINT64 above Long.MAX_VALUE is carried as its bit pattern
            default ->
                throw new IllegalArgumentException("metadata '" + key + "': an integer value cannot have type " + type);
        };
        if (!ok) {
            throw new IllegalArgumentException("metadata '" + key + "': " + v + " does not fit " + type);
        }
    }

    // ---------------------------------------------------------------- tensors

    /** Adds a tensor whose bytes are {@code data} (not copied: it is read when the file is written). */
    public GgufWriter addTensor(String name, long[] dims, GgmlType type, byte[] data) {
        return addTensor(name, dims, type, MemorySegment.ofArray(data));
    }

    /**
     * Adds a tensor whose bytes are {@code data}, read when the file is written (so a slice of another
     * file's mapping costs no heap). {@code dims[0]} is ne0, the contiguous dimension.
     */
    public GgufWriter addTensor(String name, long[] dims, GgmlType type, MemorySegment data) {
        long size = checkTensor(name, dims, type);
        if (data.byteSize() != size) {
            throw new IllegalArgumentException("tensor '" + name + "' " + type + " " + java.util.Arrays.toString(dims)
                    + " takes " + size + " bytes, but " + data.byteSize() + " were given");
        }
        return add(name, dims, type, size, new SegmentSource(data));
    }

    /** Adds a tensor whose bytes {@code filler} produces while the file is written, one tensor in memory at a time. */
    public GgufWriter addTensor(String name, long[] dims, GgmlType type, TensorFiller filler) {
        long size = checkTensor(name, dims, type);
        return add(name, dims, type, size, new FillerSource(filler));
    }

    private GgufWriter add(String name, long[] dims, GgmlType type, long size, Source source) {
        tensors.add(new PendingTensor(name, dims.clone(), type, size, source));
        tensorNames.add(name);
        return this;
    }

    /** Validates a tensor description; returns its byte size. */
    private long checkTensor(String name, long[] dims, GgmlType type) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("tensor name must not be empty");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_TENSOR_NAME_BYTES) {
            throw new IllegalArgumentException("tensor name '" + name + "' is longer than " + MAX_TENSOR_NAME_BYTES
                    + " bytes (llama.cpp's limit)");
        }
        if (tensorNames.contains(name)) {
            throw new IllegalArgumentException("duplicate tensor name '" + name + "'");
        }
        if (type == null) {
            throw new IllegalArgumentException("tensor '" + name + "' has no type");
        }
        if (dims == null || dims.length < 1 || dims.length > GgufReader.MAX_DIMS) {
            throw new IllegalArgumentException(
                    "tensor '" + name + "' must have 1 to " + GgufReader.MAX_DIMS + " dimensions");
        }
        long elements = 1;
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] <= 0) {
                throw new IllegalArgumentException(
                        "tensor '" + name + "' dimension " + d + " is " + dims[d] + " (must be positive)");
            }
            if (elements > Long.MAX_VALUE / dims[d]) {
                throw new IllegalArgumentException("tensor '" + name + "' element count overflows");
            }
            elements *= dims[d];
        }
        if (dims[0] % type.blockSize() != 0) {
            throw new IllegalArgumentException("tensor '" + name + "' width " + dims[0] + " is not a multiple of the "
                    + type + " block size " + type.blockSize());
        }
        long size = type.bytesFor(elements);
        if (size < 0) {
            throw new IllegalArgumentException("tensor '" + name + "' byte size overflows");
        }
        return size;
    }

    // ---------------------------------------------------------------- layout

    /** {@code general.alignment}, or GGUF's default 32. */
    public int alignment() {
        GgufValue v = metadata.get(GgufReader.ALIGNMENT_KEY);
        return v == null ? GgufReader.DEFAULT_ALIGNMENT : (int) ((GgufValue.IntValue) v).value();
    }

    /** The tensor infos as they will be written (offsets relative to the data section). */
    public List<GgufTensorInfo> tensors() {
        long[] offsets = offsets();
        List<GgufTensorInfo> out = new ArrayList<>(tensors.size());
        for (int i = 0; i < tensors.size(); i++) {
            PendingTensor t = tensors.get(i);
            out.add(new GgufTensorInfo(t.name(), t.dims(), t.type(), offsets[i], t.byteSize()));
        }
        return List.copyOf(out);
    }

    /** Size of the file {@link #write} will produce. */
    public long fileSize() {
        return layout().fileSize();
    }

    private long[] offsets() {
        long align = alignment();
        long[] offsets = new long[tensors.size() + 1]; // last entry: size of the data section
        for (int i = 0; i < tensors.size(); i++) {
            long padded = alignUp(tensors.get(i).byteSize(), align);
            if (padded < 0 || offsets[i] > Long.MAX_VALUE - padded) {
                throw new IllegalArgumentException("data section larger than 2^63 bytes");
            }
            offsets[i + 1] = offsets[i] + padded;
        }
        return offsets;
    }

    private Layout layout() {
        long[] offsets = offsets();
        HeaderBuffer h = new HeaderBuffer();
        h.u32(GgufReader.MAGIC);
        h.u32(VERSION);
        h.u64(tensors.size());
        h.u64(metadata.size());
        for (Map.Entry<String, GgufValue> e : metadata.entrySet()) {
            h.string(e.getKey());
            h.u32(e.getValue().type().id());
            encodeValue(h, e.getValue());
        }
        for (int i = 0; i < tensors.size(); i++) {
            PendingTensor t = tensors.get(i);
            h.string(t.name());
            h.u32(t.dims().length);
            for (long d : t.dims()) {
                h.u64(d);
            }
            h.u32(t.type().id());
            h.u64(offsets[i]);
        }
        if (!tensors.isEmpty()) {
            h.zeros((int) (alignUp(h.size(), alignment()) - h.size()));
        }
        long fileSize = h.size() + offsets[tensors.size()];
        return new Layout(h, offsets, fileSize);
    }

    private static void encodeValue(HeaderBuffer h, GgufValue value) {
        switch (value) {
            case GgufValue.IntValue i -> encodeInt(h, i.type(), i.value());
            case GgufValue.FloatValue f -> {
                if (f.type() == GgufValueType.FLOAT32) {
                    h.u32(Float.floatToRawIntBits((float) f.value()));
                } else {
                    h.u64(Double.doubleToRawLongBits(f.value()));
                }
            }
            case GgufValue.BoolValue b -> h.u8(b.value() ? 1 : 0);
            case GgufValue.StringValue s -> h.string(s.value());
            case GgufValue.ArrayValue a -> encodeArray(h, a);
        }
    }

    private static void encodeArray(HeaderBuffer h, GgufValue.ArrayValue a) {
        GgufValueType et = a.elementType();
        h.u32(et.id());
        h.u64(a.length());
        switch (et) {
            case STRING -> {
                for (String s : a.strings()) {
                    h.string(s);
                }
            }
            case ARRAY -> {
                for (GgufValue.ArrayValue inner : a.arrays()) {
                    encodeArray(h, inner);
                }
            }
            case BOOL -> {
                for (boolean b : a.bools()) {
                    h.u8(b ? 1 : 0);
                }
            }
            case FLOAT32 -> {
                for (double d : a.doubles()) {
                    h.u32(Float.floatToRawIntBits((float) d));
                }
            }
            case FLOAT64 -> {
                for (double d : a.doubles()) {
                    h.u64(Double.doubleToRawLongBits(d));
                }
            }
            default -> {
                for (long v : a.longs()) {
                    encodeInt(h, et, v);
                }
            }
        }
    }

    private static void encodeInt(HeaderBuffer h, GgufValueType type, long v) {
        switch (type) {
            case UINT8, INT8 -> h.u8((int) v);
            case UINT16, INT16 -> h.u16((int) v);
            case UINT32, INT32 -> h.u32((int) v);
            default -> h.u64(v);
        }
    }

    private static long alignUp(long x, long a) {
        return (x + a - 1) / a * a;
    }

    // ---------------------------------------------------------------- output

    /** The whole file as a byte array (for tests and small files); fails when it would exceed 2 GiB. */
    public byte[] toByteArray() throws IOException {
        Layout layout = layout();
        if (layout.fileSize() > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException(
                    "GGUF image of " + layout.fileSize() + " bytes does not fit a byte array; write it to a file");
        }
        byte[] out = new byte[(int) layout.fileSize()];
        MemorySegment image = MemorySegment.ofArray(out);
        long[] at = {0};
        writeTo(layout, bytes -> {
            MemorySegment.copy(bytes, 0, image, at[0], bytes.byteSize());
            at[0] += bytes.byteSize();
        });
        return out;
    }

    /**
     * Writes the file atomically: into a temporary file next to {@code path}, flushed to disk, then
     * renamed over {@code path}. On any failure the temporary file is deleted and an existing file
     * at {@code path} is left untouched.
     */
    public void write(Path path) throws IOException {
        Path target = path.toAbsolutePath();
        Layout layout = layout();
        Path tmp = createTemp(target);
        boolean moved = false;
        try {
            try (FileChannel ch =
                            FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
                    Arena arena = Arena.ofConfined()) {
                MemorySegment staging = arena.allocate(COPY_CHUNK, 64);
                writeTo(layout, bytes -> writeFully(ch, bytes, staging));
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            moved = true;
        } finally {
            if (!moved) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException suppressed) {
                    // the original failure is the one to report
                }
            }
        }
    }

    /** A new empty file next to {@code target}, created with the default permissions (unlike Files.createTempFile's 0600). */
    private static Path createTemp(Path target) throws IOException {
        Path dir = target.getParent();
        for (int attempt = 0; ; attempt++) {
            Path tmp = dir.resolve("." + target.getFileName() + "."
                    + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".part");
            try {
                Files.newByteChannel(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                        .close();
                return tmp;
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) {
                    throw e;
                }
            }
        }
    }

    private static void writeFully(FileChannel ch, MemorySegment bytes, MemorySegment staging) throws IOException {
        for (long off = 0; off < bytes.byteSize(); ) {
            int n = (int) Math.min(staging.byteSize(), bytes.byteSize() - off);
            MemorySegment.copy(bytes, off, staging, 0, n);
            ByteBuffer buf = staging.asSlice(0, n).asByteBuffer();
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            off += n;
        }
    }

    private void writeTo(Layout layout, Sink sink) throws IOException {
        HeaderBuffer header = layout.header();
        sink.write(MemorySegment.ofArray(header.array()).asSlice(0, header.size()));
        MemorySegment zeros = MemorySegment.ofArray(new byte[alignment()]);
        for (int i = 0; i < tensors.size(); i++) {
            PendingTensor t = tensors.get(i);
            switch (t.source()) {
                case SegmentSource s -> sink.write(s.bytes());
                case FillerSource f -> {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment dst = arena.allocate(t.byteSize(), 64);
                        f.filler().fill(dst);
                        sink.write(dst);
                    }
                }
            }
            long pad = layout.offsets()[i + 1] - layout.offsets()[i] - t.byteSize();
            sink.write(zeros.asSlice(0, pad));
        }
    }
}

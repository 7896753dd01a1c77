package org.jacap.gguf;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A GGUF file mapped read-only. Tensors are zero-copy slices of the mapping; they stay valid
 * until {@link #close()}. Files larger than 2 GiB work (the mapping is a {@link MemorySegment}).
 */
public final class GgufFile implements AutoCloseable {
    private final Path path;
    private final Arena arena;
    private final MemorySegment mapping;
    private final GgufReader.Parsed parsed;
    private final Map<String, GgufTensorInfo> byName;

    private GgufFile(Path path, Arena arena, MemorySegment mapping, GgufReader.Parsed parsed) {
        this.path = path;
        this.arena = arena;
        this.mapping = mapping;
        this.parsed = parsed;
        this.byName = new LinkedHashMap<>();
        for (GgufTensorInfo t : parsed.tensors()) {
            byName.put(t.name(), t);
        }
    }

    /**
     * Maps and validates the file. Throws {@link java.nio.file.NoSuchFileException} (an
     * IOException) when it is missing, an IOException when it is not a regular file, and a
     * {@link GgufFormatException} naming the file and byte offset when it is malformed; the
     * mapping is released on failure.
     */
    public static GgufFile open(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            throw new IOException(path + " is a directory, not a GGUF file");
        }
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            // Pipes and devices cannot be mapped (and opening a FIFO would block).
            throw new IOException(path + " is not a regular file");
        }
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size == 0) {
                throw new GgufFormatException(0, "empty file");
            }
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            GgufReader.Parsed parsed = GgufReader.parse(seg);
            return new GgufFile(path, arena, seg, parsed);
        } catch (GgufFormatException e) {
            arena.close();
            throw e.inFile(path);
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** Parses a GGUF image already in memory (used by tests and the writer's round trips). */
    public static GgufFile fromSegment(MemorySegment image) {
        return new GgufFile(null, null, image.asReadOnly(), GgufReader.parse(image));
    }

    public Path path() {
        return path;
    }

    public int version() {
        return parsed.version();
    }

    public GgufMetadata metadata() {
        return parsed.metadata();
    }

    /** Tensor infos in file order. */
    public List<GgufTensorInfo> tensors() {
        return parsed.tensors();
    }

    public Optional<GgufTensorInfo> findTensor(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** The named tensor, or a {@link GgufFormatException} naming the missing tensor. */
    public GgufTensorInfo tensor(String name) {
        GgufTensorInfo t = byName.get(name);
        if (t == null) {
            throw new GgufFormatException("missing tensor '" + name + "'" + (path == null ? "" : " in " + path));
        }
        return t;
    }

    /** The tensor's bytes: a read-only slice of the mapping, no copy. */
    public MemorySegment data(GgufTensorInfo t) {
        return mapping.asSlice(parsed.dataStart() + t.offset(), t.byteSize());
    }

    /** Total number of tensor elements (weights), as llama.cpp counts a model's parameters. */
    public long parameterCount() {
        long n = 0;
        for (GgufTensorInfo t : parsed.tensors()) {
            n += t.elementCount();
            if (n < 0) {
                return Long.MAX_VALUE; // only overlapping hostile tensors can get here
            }
        }
        return n;
    }

    public int alignment() {
        return parsed.alignment();
    }

    /** Absolute file offset where the data section starts. */
    public long dataStart() {
        return parsed.dataStart();
    }

    public long fileSize() {
        return mapping.byteSize();
    }

    /** Non-fatal oddities found while parsing (e.g. a key repeated with the same value). */
    public List<String> warnings() {
        return parsed.warnings();
    }

    @Override
    public void close() {
        if (arena != null && arena.scope().isAlive()) {
            arena.close();
        }
    }
}

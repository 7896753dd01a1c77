package org.jacap.bench.reliability;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;

/**
 * One file of the fuzz corpus: small ones are held in memory and may change length; large ones
 * (real models) are mapped copy-on-write per case, so a mutation costs only the pages it touches.
 *
 * @param name      for the report
 * @param path      the file
 * @param copy      a writable copy of a large file (copy-on-write mappings need a writable channel,
 *                  and the original is never opened for writing), else null
 * @param size      its length in bytes
 * @param bytes     its content when small, else null
 * @param headerEnd where the tensor data starts
 * @param fields    the header's numeric fields
 * @param tensors   each tensor's absolute byte range
 */
record FuzzSample(
        String name,
        Path path,
        Path copy,
        long size,
        byte[] bytes,
        long headerEnd,
        List<HeaderFields.Field> fields,
        List<TensorRange> tensors) {

    /** Files up to this size are mutated in memory (and may grow or shrink). */
    static final long IN_MEMORY_LIMIT = 16L << 20;

    /** A tensor's bytes in the file and its type name. */
    record TensorRange(long start, long length, String type) {}

    boolean inMemory() {
        return bytes != null;
    }

    /** Reads {@code path}; a large one is first copied into {@code workDir}. */
    static FuzzSample of(Path path, Path workDir) throws IOException {
        long size = Files.size(path);
        try (Arena arena = Arena.ofConfined();
                FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            GgufFile f = GgufFile.fromSegment(seg);
            List<TensorRange> tensors = new ArrayList<>();
            for (GgufTensorInfo t : f.tensors()) {
                tensors.add(new TensorRange(
                        f.dataStart() + t.offset(), t.byteSize(), t.type().name()));
            }
            byte[] bytes = size <= IN_MEMORY_LIMIT ? Files.readAllBytes(path) : null;
            Path copy = null;
            if (bytes == null) {
                copy = Files.copy(path, workDir.resolve(path.getFileName()));
            }
            long headerEnd = f.tensors().isEmpty() ? size : f.dataStart();
            return new FuzzSample(
                    path.getFileName().toString(),
                    path,
                    copy,
                    size,
                    bytes,
                    headerEnd,
                    HeaderFields.of(seg),
                    List.copyOf(tensors));
        }
    }

    /** A writable copy-on-write view of the whole file, valid while {@code arena} is open. */
    MemorySegment mapPrivate(Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(copy, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.PRIVATE, 0, size, arena); // writes stay in this process
        }
    }
}

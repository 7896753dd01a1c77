package org.jacap.bench.synthetic;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.jacap.bench.progress.Progress;
import org.jacap.gguf.GgufValue;
import org.jacap.gguf.GgufWriter;
import org.jacap.simd.Quantize;

/**
 * Writes a synthetic Llama GGUF (seeded random weights, see {@link SyntheticPlan}) and caches it.
 * Weights are generated and quantized in chunks of rows on {@code threads} threads while the
 * file streams to disk, so a 1B model never sits in the heap; each chunk has its own seed, so the
 * bytes do not depend on the thread count.
 */
public final class SyntheticModel {
    /** Values per generated chunk: small enough to keep the pipeline full, large enough to amortise a task. */
    private static final int CHUNK_VALUES = 1 << 18;

    private SyntheticModel() {}

    /**
     * The cached file for {@code plan} in {@code cacheDir}, written first when absent (or when its
     * size says it was written by a different plan).
     */
    public static Path ensure(SyntheticPlan plan, Path cacheDir, int threads, Progress progress) throws IOException {
        Path target = cacheDir.resolve(plan.fileName());
        GgufWriter writer = writer(plan, threads, progress);
        if (isCached(target, writer)) {
            return target;
        }
        Files.createDirectories(cacheDir);
        writer.write(target);
        return target;
    }

    /** True when {@code cacheDir} already holds the file for {@code plan}. */
    public static boolean isCached(SyntheticPlan plan, Path cacheDir) throws IOException {
        return isCached(cacheDir.resolve(plan.fileName()), writer(plan, 1, Progress.NONE));
    }

    private static boolean isCached(Path target, GgufWriter writer) throws IOException {
        return Files.isRegularFile(target) && Files.size(target) == writer.fileSize();
    }

    /** Writes {@code plan} to {@code target} (atomically), replacing any existing file. */
    public static void write(SyntheticPlan plan, Path target, int threads, Progress progress) throws IOException {
        writer(plan, threads, progress).write(target);
    }

    static GgufWriter writer(SyntheticPlan plan, int threads, Progress progress) {
        GgufWriter w = new GgufWriter();
        for (Map.Entry<String, GgufValue> e : plan.metadata().entrySet()) {
            w.put(e.getKey(), e.getValue());
        }
        long total = plan.tensorBytes();
        AtomicLong done = new AtomicLong();
        List<TensorPlan> tensors = plan.tensors();
        for (int i = 0; i < tensors.size(); i++) {
            TensorPlan t = tensors.get(i);
            long tensorSeed = SplitMix64.seed(plan.seed(), i);
            w.addTensor(t.name(), t.dims(), t.type(), dst -> {
                fill(t, tensorSeed, dst, threads);
                progress.update(done.addAndGet(t.byteSize()), total, t.name());
            });
        }
        return w;
    }

    /** Fills one tensor: chunks of rows generated on a small pool, copied into {@code dst} in order. */
    private static void fill(TensorPlan t, long tensorSeed, MemorySegment dst, int threads) throws IOException {
        int width = t.rowWidth();
        long rows = t.rows();
        int rowsPerChunk = Math.max(1, CHUNK_VALUES / width);
        long chunks = (rows + rowsPerChunk - 1) / rowsPerChunk;
        long rowBytes = t.type().bytesFor(width);
        if (chunks == 1 || threads <= 1) {
            for (long c = 0; c < chunks; c++) {
                byte[] bytes = chunk(t, tensorSeed, c, rowsPerChunk, rowBytes);
                MemorySegment.copy(MemorySegment.ofArray(bytes), 0, dst, c * rowsPerChunk * rowBytes, bytes.length);
            }
            return;
        }
        // The writer's buffer is confined to this thread: workers return heap chunks, this thread copies them.
        try (ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread th = new Thread(r, "jacap-synthetic");
            th.setDaemon(true);
            return th;
        })) {
            Deque<Future<byte[]>> pending = new ArrayDeque<>();
            long next = 0;
            for (long c = 0; c < chunks; c++) {
                while (next < chunks && pending.size() < 2 * threads) {
                    long chunk = next++;
                    pending.add(pool.submit(() -> chunk(t, tensorSeed, chunk, rowsPerChunk, rowBytes)));
                }
                byte[] bytes = pending.removeFirst().get();
                MemorySegment.copy(MemorySegment.ofArray(bytes), 0, dst, c * rowsPerChunk * rowBytes, bytes.length);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("synthetic model generation interrupted");
        } catch (ExecutionException e) {
            throw new IllegalStateException("synthetic model generation failed: " + e.getCause(), e.getCause());
        }
    }

    private static byte[] chunk(TensorPlan t, long tensorSeed, long chunk, int rowsPerChunk, long rowBytes) {
        int width = t.rowWidth();
        long firstRow = chunk * rowsPerChunk;
        int rows = (int) Math.min(rowsPerChunk, t.rows() - firstRow);
        int n = rows * width;
        float[] values = new float[n];
        switch (t.fill()) {
            case TensorPlan.Normal normal -> {
                SplitMix64 random = new SplitMix64(SplitMix64.seed(tensorSeed, chunk));
                float std = normal.std();
                for (int i = 0; i < n; i++) {
                    values[i] = random.nextGaussian() * std;
                }
            }
            case TensorPlan.Constant c -> Arrays.fill(values, c.value());
            case TensorPlan.Values v -> System.arraycopy(v.values(), (int) (firstRow * width), values, 0, n);
        }
        byte[] out = new byte[(int) (rows * rowBytes)];
        // ggml's reference quantizers (byte-identical to llama-quantize without an importance matrix).
        Quantize.row(t.type(), values, 0, n, MemorySegment.ofArray(out), 0);
        return out;
    }
}

package org.jacap.model;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;
import org.jacap.JacapException;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufMetadata;
import org.jacap.gguf.GgufTensorInfo;
import org.jacap.kv.KvCacheTypes;
import org.jacap.simd.MatMul;
import org.jacap.simd.ThreadPool;
import org.jacap.simd.VectorOps;
import org.jacap.tokenizer.Tokenizer;

/**
 * A loaded model: the mapped GGUF file, its configuration, the bound weights and a thread pool.
 * {@link #forward} appends tokens to an {@link InferenceState} and returns logits. Calls on one
 * model are serialized; any number of states may exist.
 */
public final class Model implements AutoCloseable {
    /** Tokens per forward chunk: every projection of a chunk is one batched matrix product. */
    public static final int DEFAULT_CHUNK = 512;

    private static final long PAGE = 4096;
    /** Progress is reported at least every this many bytes within a tensor. */
    private static final long PROGRESS_STEP = 64L << 20;

    private final GgufFile file;
    private final ModelConfig config;
    private final ModelWeights weights;
    private final LoadOptions options;
    private final ThreadPool pool;
    private final ForwardPass pass;
    /** Sum of the bytes read while paging in: kept so the JIT cannot drop the reads. */
    private final int pageSum;

    private boolean closed;
    private Tokenizer tokenizer;

    private Model(
            GgufFile file,
            ModelConfig config,
            ModelWeights weights,
            LoadOptions options,
            ThreadPool pool,
            int pageSum) {
        this.pageSum = pageSum;
        this.file = file;
        this.config = config;
        this.weights = weights;
        this.options = options;
        this.pool = pool;
        this.pass = new ForwardPass(config, weights, pool, new MatMul(pool, options.precision()), DEFAULT_CHUNK);
    }

    /**
     * Maps {@code path}, reads its configuration, binds every tensor and pages the weights in
     * (reporting progress). Unknown architectures, missing tensors, unsupported tensor types and
     * inconsistent shapes fail here with a message that names them.
     *
     * @throws org.jacap.gguf.GgufFormatException when the file is not valid GGUF
     * @throws JacapException when the model cannot run: its hyperparameters disagree with its tensors,
     *     or its file cannot be read while paging in
     */
    public static Model load(Path path, LoadOptions options) throws IOException {
        Objects.requireNonNull(options, "options");
        return fromFile(GgufFile.open(path), options);
    }

    /**
     * As {@link #load} for a file already opened (e.g. parsed from memory); the model owns it
     * from here on and closes it, also when this fails.
     */
    public static Model fromFile(GgufFile file, LoadOptions options) {
        Objects.requireNonNull(options, "options");
        ThreadPool pool = null;
        try {
            // Hyperparameters are checked against the tensors before anything scales with them.
            BlockCensus.check(
                    file, Architecture.forName(file.metadata().architecture()).name());
            ModelConfig config = ModelConfig.fromMetadata(file.metadata());
            checkVocabulary(file, config);
            WeightBinder binder = new WeightBinder(file, config.architecture());
            ModelWeights weights = Architecture.forName(config.architecture()).bind(binder, config);
            int pageSum;
            try {
                pageSum = pageIn(file, options.progress(), binder.copied());
            } catch (InternalError e) {
                throw unreadable(file, e);
            }
            pool = new ThreadPool(options.threads());
            try {
                return new Model(file, config, weights, options, pool, pageSum);
            } catch (IllegalArgumentException e) { // a kernel's table refused a value no check above caught
                throw new JacapException("the model's hyperparameters cannot run: " + e.getMessage(), e);
            }
        } catch (RuntimeException | Error e) {
            if (pool != null) {
                pool.close();
            }
            file.close();
            throw e;
        }
    }

    /** The JVM reports a fault on a mapped page (the file shrank under us) as an InternalError. */
    private static JacapException unreadable(GgufFile file, InternalError e) {
        String name = file.path() == null ? "the model file" : "model file " + file.path();
        return new JacapException(name + " could not be read: was it truncated or replaced while in use?", e);
    }

    private static void checkVocabulary(GgufFile file, ModelConfig config) {
        file.findTensor("token_embd.weight").ifPresent(t -> {
            if (t.rank() == 2 && t.dim(1) != config.vocabSize()) {
                throw new JacapException("token_embd.weight has " + t.dim(1) + " rows but the vocabulary has "
                        + config.vocabSize() + " tokens");
            }
        });
    }

    /**
     * Touches one byte per page of every tensor so the first token does not stall on page faults;
     * not those in {@code copied}, whose products all read a copy made at load.
     */
    private static int pageIn(GgufFile file, LoadProgress progress, Set<String> copied) {
        long total = 0;
        for (GgufTensorInfo t : file.tensors()) {
            total += t.byteSize();
        }
        long done = 0;
        int sink = 0;
        progress.update(0, total, "");
        for (GgufTensorInfo t : file.tensors()) {
            MemorySegment data = file.data(t);
            long size = data.byteSize();
            if (copied.contains(t.name())) {
                done += size;
                progress.update(done, total, t.name());
                continue;
            }
            long nextReport = PROGRESS_STEP;
            for (long off = 0; off < size; off += PAGE) {
                sink += data.get(ValueLayout.JAVA_BYTE, off);
                if (off >= nextReport) {
                    progress.update(done + off, total, t.name());
                    nextReport += PROGRESS_STEP;
                }
            }
            done += size;
            progress.update(done, total, t.name());
        }
        return sink;
    }

    public ModelConfig config() {
        return config;
    }

    /** The tokenizer described by the file's {@code tokenizer.*} metadata (built on first use). */
    public synchronized Tokenizer tokenizer() {
        if (tokenizer == null) {
            tokenizer = Tokenizer.fromMetadata(file.metadata());
        }
        return tokenizer;
    }

    public GgufMetadata metadata() {
        return file.metadata();
    }

    public LoadOptions options() {
        return options;
    }

    /** The weights as bound (for tools and tests that inspect them). */
    public ModelWeights weights() {
        return weights;
    }

    /**
     * A fresh state whose KV heads hold at most {@code contextLength} entries, stored in f32 (the
     * exact form the llama.cpp reference fixtures use; sessions default to f16, see
     * {@link #newState(int, KvCacheTypes)}).
     */
    public InferenceState newState(int contextLength) {
        return newState(contextLength, KvCacheTypes.F32);
    }

    /**
     * A fresh state storing keys and values as {@code types}. Heads of global-attention layers
     * hold at most {@code contextLength} entries; heads of sliding-window layers at most their
     * window − 1 + one chunk ({@link #DEFAULT_CHUNK}), whatever the context.
     *
     * @throws JacapException when the context is below 1 or a type does not fit the head sizes
     */
    public InferenceState newState(int contextLength, KvCacheTypes types) {
        if (contextLength < 1) {
            throw new JacapException("context length must be at least 1, got " + contextLength);
        }
        return new InferenceState(config, contextLength, types, pass.maxChunk());
    }

    /**
     * Appends {@code tokens[off, off+len)} at the state's next position and returns the logits of
     * the last token ({@code [vocab]}) or, with {@code allLogits}, of every token
     * ({@code [len * vocab]}, token i at {@code i * vocab}). The returned array is the caller's.
     * Long inputs are processed in chunks of {@link #DEFAULT_CHUNK} tokens.
     */
    public float[] forward(InferenceState st, int[] tokens, int off, int len, boolean allLogits) {
        return forwardRows(st, tokens, off, len, allLogits ? 0 : len - 1);
    }

    /**
     * The same, returning the logits of the tokens {@code [firstRow, len)} only
     * ({@code [(len − firstRow) * vocab]}): a caller that scores the last few tokens of a
     * teacher-forced run skips the output product of the others (262k rows on Gemma 3). Two or more
     * rows are the same floats as those rows of the all-logits pass; one row takes the matrix ×
     * vector product (as the last-logits pass does) and agrees with them to float rounding.
     *
     * @throws IllegalArgumentException when {@code firstRow} is outside [0, len)
     */
    public synchronized float[] forwardRows(InferenceState st, int[] tokens, int off, int len, int firstRow) {
        checkCall(st, tokens, off, len);
        checkFirstRow(firstRow, len);
        if (st.chunkListener() == null) {
            checkContext(st, len);
        }
        float[] logits;
        try {
            logits = pass.forward(st, tokens, off, len, firstRow);
        } catch (InternalError e) {
            throw unreadable(file, e);
        }
        checkFinite(logits, st.position());
        return logits;
    }

    /**
     * Runs blocks [0, {@code layers}) of one chunk {@code tokens[off, off+len)} at {@code st}'s next
     * position, without changing {@code st}, for {@link #forwardFrom} to finish on several states.
     * One chunk: {@code len} is at most {@link #maxChunk()}.
     *
     * @throws IllegalArgumentException for a bad range, {@code layers} outside [0, blocks] or a
     *     chunk longer than {@link #maxChunk()}
     */
    public synchronized BlockPrefix forwardPrefix(InferenceState st, int[] tokens, int off, int len, int layers) {
        checkCall(st, tokens, off, len);
        if (layers < 0 || layers > config.blockCount()) {
            throw new IllegalArgumentException(
                    "a prefix of " + layers + " blocks; the model has " + config.blockCount());
        }
        if (len > pass.maxChunk()) {
            throw new IllegalArgumentException(
                    "a shared prefix is one chunk of at most " + pass.maxChunk() + " tokens, got " + len);
        }
        checkContext(st, len);
        try {
            return pass.forwardPrefix(st, tokens, off, len, layers);
        } catch (InternalError e) {
            throw unreadable(file, e);
        }
    }

    /**
     * Finishes {@code prefix} on {@code st}: the same logits (of the tokens [firstRow, length), as
     * {@link #forwardRows}) and the same cache afterwards as the forward pass of the prefix's
     * tokens on {@code st}, provided blocks below
     * {@link BlockPrefix#layers()} of {@code st} hold exactly the rows of the state the prefix was
     * run on (a compressed copy whose compression left those blocks alone). Checked: the model, the
     * position, and every head's length in those blocks.
     *
     * @throws IllegalArgumentException when the prefix was made for another model, position or
     *     cache, or {@code st} has an observer or chunk listener (they would miss the shared blocks)
     */
    public synchronized float[] forwardFrom(InferenceState st, BlockPrefix prefix, int firstRow) {
        checkState(st);
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.config != config) {
            throw new IllegalArgumentException("this prefix belongs to another model");
        }
        if (st.position() != prefix.position) {
            throw new IllegalArgumentException(
                    "the prefix starts at position " + prefix.position + ", the state is at " + st.position());
        }
        for (int l = 0; l < prefix.layers; l++) {
            for (int g = 0; g < config.headCountKv(); g++) {
                if (st.kvCache().length(l, g) != prefix.lengthsBefore[l][g]) {
                    throw new IllegalArgumentException("block " + l + ", KV head " + g + " holds "
                            + st.kvCache().length(l, g) + " rows; the prefix was run on "
                            + prefix.lengthsBefore[l][g]);
                }
            }
        }
        checkFirstRow(firstRow, prefix.length());
        checkUnobserved(st);
        checkContext(st, prefix.length());
        float[] logits;
        try {
            logits = pass.forwardFrom(st, prefix, firstRow);
        } catch (InternalError e) {
            throw unreadable(file, e);
        }
        checkFinite(logits, st.position());
        return logits;
    }

    /** Tokens one forward chunk holds at most (longer inputs are split into chunks of this). */
    public int maxChunk() {
        return pass.maxChunk();
    }

    private void checkCall(InferenceState st, int[] tokens, int off, int len) {
        checkState(st);
        Objects.checkFromIndexSize(off, len, tokens.length);
        if (len == 0) {
            throw new IllegalArgumentException("forward needs at least one token");
        }
        int vocab = config.vocabSize();
        for (int i = off; i < off + len; i++) {
            if (tokens[i] < 0 || tokens[i] >= vocab) {
                throw new JacapException("token id " + tokens[i] + " is outside the vocabulary [0, " + vocab + ")");
            }
        }
    }

    private void checkState(InferenceState st) {
        if (closed) {
            throw new IllegalStateException("model is closed");
        }
        Objects.requireNonNull(st, "state");
        if (st.config() != config) {
            throw new IllegalArgumentException("this inference state belongs to another model");
        }
    }

    private static void checkFirstRow(int firstRow, int len) {
        if (firstRow < 0 || firstRow >= len) {
            throw new IllegalArgumentException("logits from token " + firstRow + " of " + len);
        }
    }

    private static void checkUnobserved(InferenceState st) {
        if (st.observer() != null || st.chunkListener() != null) {
            throw new IllegalArgumentException(
                    "a shared prefix runs without an observer or chunk listener (they would miss the shared blocks)");
        }
    }

    /**
     * NaN or infinite weights (or hyperparameters that pass every range check and still overflow)
     * would otherwise sample token 0 forever without a word.
     */
    private static void checkFinite(float[] logits, int position) {
        if (VectorOps.allFinite(logits, 0, logits.length)) {
            return;
        }
        for (float v : logits) {
            if (!Float.isFinite(v)) {
                throw new JacapException("the model computed a non-finite logit (" + v + ") before position " + position
                        + ": its weights or hyperparameters hold NaN, infinity or overflowing values");
            }
        }
    }

    /** Fails unless every KV head has room for {@code incoming} more entries within the state's context. */
    static void checkContext(InferenceState st, int incoming) {
        long needed = (long) st.kvCache().maxLength() + incoming;
        if (needed > st.contextLength()) {
            int held = st.kvCache().maxLength();
            String what =
                    held == 0 ? "prompt of " + incoming + " tokens" : held + " tokens so far + " + incoming + " new";
            throw new JacapException(what + " exceeds the context of " + st.contextLength() + " tokens");
        }
    }

    /**
     * Runs {@code task} over {@code [0, count)} on the model's compute threads, for work between
     * forward passes (an evaluation comparing logit rows); never from inside a forward pass or a task.
     */
    public void parallelFor(int count, ThreadPool.RangeTask task) {
        pool.parallelFor(count, task);
    }

    /** Stops the thread pool and unmaps the file; the model cannot be used afterwards. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            pool.close();
            file.close();
        }
    }
}

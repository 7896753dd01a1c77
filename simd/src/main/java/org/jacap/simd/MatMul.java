package org.jacap.simd;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.Objects;
import org.jacap.gguf.GgmlType;

/**
 * Matrix products with quantized weights: {@code out[outOff + b*rows + r] = Σ_c W[r][c] · x[xOff + b*cols + c]}
 * for every token {@code b < batch}. Batch 1 is decode (matrix × vector): threads take pieces of
 * rows from a shared counter and stream each row once through the type's fused dot (for an
 * {@link IntegerDotKernel} type under {@link Precision#NATIVE}, an integer dot against activations
 * quantized once per call, {@link QuantizedActivations}). Larger
 * batches are prefill (matrix × matrix, compute-bound):
 *
 * <pre>
 *   pack the activations token-minor, 16 tokens per group (zeros past the last token);
 *   threads take pieces of rows (groups of 6) from a shared counter;
 *   for each block of up to {@code tokenBlock} tokens (whole groups of 16)
 *     for each panel of columns whose packed activations fit in L2
 *       for each group of 6 rows of the piece
 *         for each chunk of {@code kChunk} columns of the panel
 *           decode the 6 row pieces to floats once (per-thread scratch, 48 KiB)
 *           run the 6-row x 16-token outer-product tile over every token group of the block
 * </pre>
 *
 * So each weight is decoded once per token block and reused by all its tokens. With
 * {@link Precision#NATIVE} the activations are first rounded to the weight type's {@link VecDotType}.
 *
 * <p>Owns its scratch buffers: use one instance from one thread at a time. After the first call
 * with the largest shape, calls do not allocate.
 */
public final class MatMul {
    /** Rows per thread work item of matrix x vector. */
    static final int ROW_TILE = 4;
    /** Rows per thread work item of matrix x matrix: the tile height. */
    static final int PREFILL_ROWS = FloatLoops.PACK_ROWS;

    static final int PACK = FloatLoops.PACK;
    /** Tokens per block: each decoded weight chunk serves this many tokens. */
    static final int TOKEN_BLOCK = 128;
    /** Blocks of 32 columns per call of the Q4_0 integer tile ({@link #matMulIntegerRows}; Q4_K: one super-block). */
    static final int INTEGER_K_BLOCKS = 4;
    /** Token groups of the integer tiles per pass over a row group's weights. */
    static final int INTEGER_GROUPS = 2;
    /** Columns decoded per row piece (6 rows x 2048 floats = 48 KiB of scratch per thread). */
    static final int K_CHUNK = 2048;

    /**
     * Columns per k block of {@link #matMulRepackedRows}: a block's weights (32 rows) and one token
     * pair's activations take 16 KiB each, so both stay in a 48 KiB L1 while four tiles and every
     * token pair of the block reuse them.
     */
    static final int K_BLOCK = 128;
    /** Activation bytes a column panel may take: about a third of a 512 KiB L2. */
    static final int PANEL_BYTES = 192 * 1024;

    /**
     * Each type's {@link TypeKernel#dot} and {@link TypeKernel#dequantize} as handles bound to its
     * kernel, by {@link GgmlType#ordinal()}. The loops below call the kernels through them (see
     * {@link #matVecRows}); bound handles are immutable, so every instance shares them.
     */
    private static final MethodHandle[] DOTS = new MethodHandle[GgmlType.values().length];

    private static final MethodHandle[] DEQUANTIZERS = new MethodHandle[GgmlType.values().length];
    /**
     * For the types that have one (else null), the integer kernel's row loop of this CPU's width:
     * bound to the kernel's own {@code dotQ8RowsWide} or {@code dotQ8RowsNarrow}, so each type's
     * loop and dot are a compilation of their own. A default method shared by every type (as
     * {@code dotQ8} once was) is compiled with the kernels its receivers had run inlined into it:
     * a model's two types (SmolLM2's Q4_1 layers and Q8_0 output) met in one compilation, and
     * after a prefill had called it with the other type first the Q4_1 decode ran 1.4x slower.
     */
    private static final MethodHandle[] Q8_ROWS = new MethodHandle[GgmlType.values().length];

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            MethodHandle dot = lookup.findVirtual(
                    TypeKernel.class,
                    "dot",
                    MethodType.methodType(
                            float.class,
                            MemorySegment.class,
                            long.class,
                            float[].class,
                            int.class,
                            int.class,
                            DotScratch.class));
            MethodHandle dequantize = lookup.findVirtual(
                    TypeKernel.class,
                    "dequantize",
                    MethodType.methodType(
                            void.class, MemorySegment.class, long.class, float[].class, int.class, int.class));
            MethodType q8Rows = MethodType.methodType(
                    void.class,
                    MemorySegment.class,
                    long.class,
                    long.class,
                    QuantizedActivations.class,
                    int.class,
                    float[].class,
                    int.class,
                    int.class);
            for (GgmlType type : GgmlType.values()) {
                if (Kernels.supports(type)) {
                    DOTS[type.ordinal()] = dot.bindTo(Kernels.of(type));
                    DEQUANTIZERS[type.ordinal()] = dequantize.bindTo(Kernels.of(type));
                    if (Kernels.of(type) instanceof IntegerDotKernel ik) {
                        Q8_ROWS[type.ordinal()] = lookup.findVirtual(
                                        ik.getClass(), Layouts.WIDE ? "dotQ8RowsWide" : "dotQ8RowsNarrow", q8Rows)
                                .bindTo(ik);
                    }
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ThreadPool pool;
    private final Precision precision;
    private final boolean vectorized;
    /** Prefill with {@link FloatLoops#tile6x32} (two token groups, 16-lane vectors) where two groups remain. */
    private final boolean wideTile;

    private final int kChunk;
    private final int tokenBlock;
    private final int panelBytes;
    private final float[][] weightScratch;
    /** Per worker, 32 rows x kChunk columns of a repacked matrix, column-major ({@link #matMulRepackedRows}). */
    private final float[][] groupScratch;
    /** Per worker, the sums of a token block x 32 rows as 8-row tiles ({@link #matMulRepackedRows}). */
    private final float[][] groupAccumulators;

    private final float[][] tileScratch;
    /** Per worker, {@link #matMulIntegerRows}: a row group's chunk unpacked, its scales, its sums, the tile's scratch. */
    private final short[][] integerWeights;

    private final float[][] integerScales;
    private final float[][] integerMinScales;
    private final int[][] integerSubScales;
    private final int[][] integerSubMins;
    private final float[][] integerSums;
    private final float[][] integerMins;
    private final short[][] integerTileScratch;
    private final int[][] integerBlockSums;
    private final QuantizedActivations[] tokenQuantizers;
    private final DotScratch[] dotScratch;
    private final ThreadPool.RangeTask rowsTask = this::matVecRows;
    private final ThreadPool.RangeTask q8RowsTask = this::matVecRowsQ8;
    private final ThreadPool.RangeTask interleavedTask = this::matVecInterleaved;
    private final ThreadPool.RangeTask groupsTask = this::matMulRows;
    private final ThreadPool.RangeTask repackedGroupsTask = this::matMulRepackedRows;
    private final ThreadPool.RangeTask roundTask = this::roundTokens;
    private final ThreadPool.RangeTask packTask = this::packTokens;
    private final ThreadPool.RangeTask sharedTask = this::sharedRowsQ8;
    private final ThreadPool.RangeTask integerPackTask = this::packTokensQ8;
    private final ThreadPool.RangeTask integerGroupsTask = this::matMulIntegerRows;
    /** The decode activations of the integer kernels, quantized once per call. */
    private final QuantizedActivations q8 = new QuantizedActivations();

    private VecDotType roundType;
    private float[] rounded = new float[0];
    /** Q8_1 block-sum corrections per token and block ({@link #addQ8_1SumCorrections}); grows, never shrinks. */
    private float[] sumCorrections = new float[0];

    private float[] packed = new float[0];

    /** Set by {@link #multiplyShared} while a prefill's later matrices reuse the rounded, packed input. */
    private boolean reuseInput;
    /** Whether the float path's rounded, packed input of this {@link #multiplyShared} call is there. */
    private boolean floatInputReady;
    /** The same for the integer prefill's quantized input ({@link #tokensQ8}). */
    private boolean integerInputReady;

    /** The integer prefill's activations per token group ({@link Q4_0IntegerTile#pack}, {@link Q4KIntegerTile#pack}). */
    private short[] tokensQ8 = new short[0];
    /** Their block scales (Q8_0 per 32, Q8_K per 256). */
    private float[] tokenScalesQ8 = new float[0];
    /** Their sums per 32 (Q4_K's minimums take them). */
    private int[] tokenSumsQ8 = new int[0];
    /**
     * The type of the matrix the integer prefill multiplies (Q4_0, Q4_K or a narrow Q8_0); its
     * activation type is {@link #tokensQ8}'s, since a shared input is packed once only for matrices
     * of one activation grid ({@link #sameInput}).
     */
    private GgmlType prefillType;

    // The matrices of a multiplyShared call in flight, their first row group each (and the end).
    private WeightMatrix[] sharedW;
    private float[][] sharedOut;
    private int[] sharedBase = new int[4];
    private MethodHandle[] sharedRows = new MethodHandle[3];

    // The call in flight, published to the workers by ThreadPool's generation counter.
    private TypeKernel kernel;
    private MethodHandle dot;
    /** The integer kernel's row loop ({@link #Q8_ROWS}); null for a float kernel. */
    private MethodHandle q8Rows;

    private MethodHandle dequantize;
    private MemorySegment data;
    /** The decode product's repacked weights ({@link Interleaving}); null when it reads {@link #data}. */
    private MemorySegment interleaved;
    /** The matrix's {@link WeightMatrix#narrowQuants}, for the decode kernel of its repacked copy. */
    private boolean narrowQuants;

    /** The prefill's repacked weights ({@link #matMulRepackedRows}); null when it reads {@link #data}. */
    private MemorySegment prefillCopy;

    private long rowBytes;
    private int rows;
    private int cols;
    private int batch;
    private float[] xs;
    private int xBase;
    private float[] out;
    private int outOff;

    /** The fast (vectorised) product. */
    public MatMul(ThreadPool pool, Precision precision) {
        this(pool, precision, true, K_CHUNK, TOKEN_BLOCK, PANEL_BYTES);
    }

    /** Tuning constructor (tests and benchmarks): chunk width, token block (a multiple of 16) and activation panel budget. */
    MatMul(ThreadPool pool, Precision precision, boolean vectorized, int kChunk, int tokenBlock, int panelBytes) {
        this(pool, precision, vectorized, kChunk, tokenBlock, panelBytes, FloatLoops.WIDE_TILE);
    }

    /** The same, choosing the 16-lane prefill tile or the 8-lane one (tests run both on any machine). */
    MatMul(
            ThreadPool pool,
            Precision precision,
            boolean vectorized,
            int kChunk,
            int tokenBlock,
            int panelBytes,
            boolean wideTile) {
        this.wideTile = vectorized && wideTile;
        this.pool = Objects.requireNonNull(pool, "pool");
        this.precision = Objects.requireNonNull(precision, "precision");
        if (kChunk % 256 != 0 || kChunk <= 0) {
            throw new IllegalArgumentException("kChunk must be a positive multiple of 256");
        }
        if (tokenBlock % PACK != 0 || tokenBlock <= 0) {
            throw new IllegalArgumentException("tokenBlock must be a positive multiple of " + PACK);
        }
        this.vectorized = vectorized;
        this.kChunk = kChunk;
        this.tokenBlock = tokenBlock;
        this.panelBytes = panelBytes;
        this.weightScratch = new float[pool.threads()][PREFILL_ROWS * kChunk];
        this.groupScratch = new float[pool.threads()][this.wideTile ? Q4KInterleaved.ROWS * kChunk : 0];
        int tokenPairs = (tokenBlock + 2 * PACK - 1) / (2 * PACK);
        this.groupAccumulators =
                new float[pool.threads()][this.wideTile ? tokenPairs * Q4KInterleaved.ROWS * 2 * PACK : 0];
        this.tileScratch = new float[pool.threads()][2 * PREFILL_ROWS * PACK];
        int threads = pool.threads();
        int group = Q4_0IntegerTile.GROUP;
        this.integerWeights = new short[threads][group * kChunk];
        this.integerScales = new float[threads][group * kChunk / 32];
        this.integerMinScales = new float[threads][group * kChunk / 256];
        this.integerSubScales = new int[threads][group * kChunk / 32];
        this.integerSubMins = new int[threads][group * kChunk / 32];
        this.integerSums = new float[threads][INTEGER_GROUPS * group * Q4_0IntegerTile.TOKENS];
        this.integerMins = new float[threads][INTEGER_GROUPS * group * Q4_0IntegerTile.TOKENS];
        this.integerTileScratch = new short[threads][Q8_0NarrowTile.SCRATCH]; // the largest of the tiles'
        this.integerBlockSums = new int[threads][Q4KIntegerTile.SUMS];
        this.tokenQuantizers = new QuantizedActivations[threads];
        for (int i = 0; i < threads; i++) {
            tokenQuantizers[i] = new QuantizedActivations();
        }
        this.dotScratch = new DotScratch[pool.threads()];
        for (int i = 0; i < dotScratch.length; i++) {
            dotScratch[i] = new DotScratch();
        }
    }

    /** The scalar twin: same blocking, scalar decoders and scalar dot products (for tests and benchmarks). */
    public static MatMul scalarTwin(ThreadPool pool, Precision precision) {
        return new MatMul(pool, precision, false, K_CHUNK, TOKEN_BLOCK, PANEL_BYTES);
    }

    public Precision precision() {
        return precision;
    }

    public ThreadPool pool() {
        return pool;
    }

    /**
     * {@code out[outOff + b*w.rows() + r] = Σ_c W[r][c] · x[xOff + b*w.cols() + c]} for {@code b < batch}.
     * {@code x} is not modified.
     */
    public void multiply(WeightMatrix w, float[] x, int xOff, int batch, float[] out, int outOff) {
        Objects.requireNonNull(w, "w");
        if (batch < 0) {
            throw new IllegalArgumentException("batch must be >= 0, got " + batch);
        }
        Objects.checkFromIndexSize(xOff, Math.multiplyExact(batch, w.cols()), x.length);
        Objects.checkFromIndexSize(outOff, Math.multiplyExact(batch, w.rows()), out.length);
        if (batch == 0) {
            return;
        }
        TypeKernel k = Kernels.of(w.type());
        VecDotType vdt = precision == Precision.NATIVE ? k.vecDotType() : VecDotType.F32;
        // Decode with integer products where the type has them: the same values as rounding
        // the activations to Q8_0/Q8_K and running the float dot, fewer operations per weight.
        boolean integer = batch == 1 && precision == Precision.NATIVE && k instanceof IntegerDotKernel;
        // Q4_0, Q4_K and narrow Q8_0 prefill on 16-bit integer lanes: the decode kernel's arithmetic, token by token
        boolean integerPrefill = batch > 1
                && precision == Precision.NATIVE
                && (w.type() == GgmlType.Q4_0 || w.type() == GgmlType.Q4_K || w.narrowQuants())
                && w.interleaved() != null;
        if (!reuseInput) {
            floatInputReady = false;
            integerInputReady = false;
        }
        if (integer) {
            q8.quantize(vdt, x, xOff, w.cols());
        } else if (integerPrefill) {
            this.cols = w.cols();
            this.batch = batch;
            this.prefillType = w.type();
            if (!integerInputReady) {
                int groups = (batch + Q4_0IntegerTile.TOKENS - 1) / Q4_0IntegerTile.TOKENS;
                int n = groups * Q4_0IntegerTile.TOKENS * w.cols();
                if (tokensQ8.length < n) {
                    tokensQ8 = new short[n];
                    tokenScalesQ8 = new float[n / 32];
                    tokenSumsQ8 = new int[n / 32];
                }
                this.xs = x;
                this.xBase = xOff;
                pool.parallelFor(groups, integerPackTask);
                integerInputReady = true;
            }
        } else if (vdt == VecDotType.F32) {
            this.xs = x;
            this.xBase = xOff;
        } else {
            int n = batch * w.cols();
            if (rounded.length < n) {
                rounded = new float[n];
            }
            this.roundType = vdt;
            this.xs = x;
            this.xBase = xOff;
            this.cols = w.cols();
            if (floatInputReady) {
                // multiplyShared: rounded (and packed) for an earlier matrix of this input
            } else if (batch == 1) {
                roundInput(vdt, x, xOff, rounded, 0, n);
            } else {
                pool.parallelFor(batch, roundTask); // one token's activations per index
            }
            this.xs = rounded;
            this.xBase = 0;
        }
        this.kernel = k;
        this.dot = integer ? null : DOTS[w.type().ordinal()];
        this.q8Rows = integer ? Q8_ROWS[w.type().ordinal()] : null;
        this.dequantize = DEQUANTIZERS[w.type().ordinal()];
        this.data = w.data();
        this.interleaved = integer ? w.interleaved() : null;
        this.narrowQuants = w.narrowQuants();
        this.rowBytes = w.rowBytes();
        this.rows = w.rows();
        this.cols = w.cols();
        this.batch = batch;
        this.out = out;
        this.outOff = outOff;
        try {
            if (integerPrefill) {
                this.prefillCopy = w.interleaved();
                int rowGroups = Q4KInterleaved.groups(rows);
                pool.parallelForDynamic(rowGroups, grain(rowGroups, 2), integerGroupsTask);
            } else if (interleaved != null) {
                int groups = Q4KInterleaved.groups(rows);
                pool.parallelForDynamic(groups, grain(groups, 2), interleavedTask);
            } else if (batch == 1) {
                int groups = (rows + ROW_TILE - 1) / ROW_TILE;
                pool.parallelForDynamic(groups, grain(groups, 8), integer ? q8RowsTask : rowsTask);
            } else {
                int groups = (batch + PACK - 1) / PACK;
                int n = groups * PACK * cols;
                if (packed.length < n) {
                    packed = new float[n];
                }
                if (!floatInputReady) {
                    pool.parallelFor(groups, packTask);
                }
                floatInputReady = true;
                if (wideTile && Interleaving.prefillsFromCopy(w)) {
                    // the repacked copy only: the stored pages of the matrix are never touched
                    this.prefillCopy = w.interleaved();
                    int rowGroups = Q4KInterleaved.groups(rows);
                    pool.parallelForDynamic(rowGroups, grain(rowGroups, 2), repackedGroupsTask);
                } else {
                    int rowGroups = (rows + PREFILL_ROWS - 1) / PREFILL_ROWS;
                    pool.parallelForDynamic(rowGroups, grain(rowGroups, 4), groupsTask);
                }
            }
        } finally {
            this.xs = null;
            this.out = null;
            this.data = null;
            this.interleaved = null;
            this.prefillCopy = null;
        }
        if (vdt == VecDotType.Q8_1 && !integer) {
            addQ8_1SumCorrections(w, x, xOff, batch, out, outOff);
        }
    }

    /**
     * {@code outs[i] = ws[i] · x} for matrices that read one input (Q/K/V, gate/up): each output as
     * {@link #multiply} gives it alone. At decode, when every matrix has an integer kernel with the
     * same activation type and width, {@code x} is quantized once and all rows go to the pool in
     * one hand-off (a small model's decode makes hundreds of products a token, each a few tens of
     * microseconds, so the hand-offs count); otherwise the products run one by one.
     */
    public void multiplyShared(WeightMatrix[] ws, float[] x, int xOff, int batch, float[][] outs) {
        if (ws.length != outs.length) {
            throw new IllegalArgumentException(ws.length + " matrices but " + outs.length + " outputs");
        }
        if (batch > 1 && ws.length > 1 && sameInput(ws)) {
            // prefill: the input rounded and packed once, for the first matrix; the others reuse it
            multiply(ws[0], x, xOff, batch, outs[0], 0);
            reuseInput = true;
            try {
                for (int i = 1; i < ws.length; i++) {
                    multiply(ws[i], x, xOff, batch, outs[i], 0);
                }
            } finally {
                reuseInput = false;
            }
            return;
        }
        if (batch != 1 || precision != Precision.NATIVE || !sharesActivations(ws)) {
            for (int i = 0; i < ws.length; i++) {
                multiply(ws[i], x, xOff, batch, outs[i], 0);
            }
            return;
        }
        int cols = ws[0].cols();
        Objects.checkFromIndexSize(xOff, cols, x.length);
        if (sharedBase.length < ws.length + 1) {
            sharedBase = new int[ws.length + 1];
            sharedRows = new MethodHandle[ws.length];
        }
        for (int i = 0; i < ws.length; i++) {
            Objects.checkFromIndexSize(0, ws[i].rows(), outs[i].length);
            int unit = unitRows(ws[i]);
            sharedBase[i + 1] = sharedBase[i] + (ws[i].rows() + unit - 1) / unit;
            sharedRows[i] = Q8_ROWS[ws[i].type().ordinal()];
        }
        q8.quantize(Kernels.of(ws[0].type()).vecDotType(), x, xOff, cols);
        this.sharedW = ws;
        this.sharedOut = outs;
        this.cols = cols;
        try {
            int groups = sharedBase[ws.length];
            pool.parallelForDynamic(groups, grain(groups, 8), sharedTask);
        } finally {
            this.sharedW = null;
            this.sharedOut = null;
        }
    }

    /** Rows per work unit of a decode product: a repacked group, or {@link #ROW_TILE} stored rows. */
    private static int unitRows(WeightMatrix w) {
        return w.interleaved() != null ? Q4KInterleaved.ROWS : ROW_TILE;
    }

    /** True when every matrix rounds its input to the same grid and has the same width. */
    private boolean sameInput(WeightMatrix[] ws) {
        VecDotType first = inputGrid(ws[0]);
        for (WeightMatrix w : ws) {
            if (inputGrid(w) != first || w.cols() != ws[0].cols()) {
                return false;
            }
        }
        return true;
    }

    private VecDotType inputGrid(WeightMatrix w) {
        return precision == Precision.NATIVE ? Kernels.of(w.type()).vecDotType() : VecDotType.F32;
    }

    /** True when every matrix has an integer kernel and they take the same activations (type and width). */
    private static boolean sharesActivations(WeightMatrix[] ws) {
        if (ws.length == 0) {
            return false;
        }
        VecDotType vdt = Kernels.of(ws[0].type()).vecDotType();
        for (WeightMatrix w : ws) {
            if (!(Kernels.of(w.type()) instanceof IntegerDotKernel k)
                    || k.vecDotType() != vdt
                    || w.cols() != ws[0].cols()) {
                return false;
            }
        }
        return true;
    }

    /** The row groups {@code [groupStart, groupEnd)} of {@link #multiplyShared}'s matrices laid end to end. */
    private void sharedRowsQ8(int groupStart, int groupEnd, int worker) {
        WeightMatrix[] ws = sharedW;
        for (int m = 0; m < ws.length; m++) {
            int lo = Math.max(groupStart, sharedBase[m]);
            int hi = Math.min(groupEnd, sharedBase[m + 1]);
            if (lo >= hi) {
                continue;
            }
            WeightMatrix w = ws[m];
            float[] o = sharedOut[m];
            int unit = unitRows(w);
            int r0 = (lo - sharedBase[m]) * unit;
            int r1 = Math.min(w.rows(), (hi - sharedBase[m]) * unit);
            if (w.interleaved() != null) {
                Interleaving.rows(
                        w.type(),
                        w.narrowQuants(),
                        vectorized,
                        w.interleaved(),
                        q8,
                        cols,
                        o,
                        0,
                        r0,
                        r1 - r0,
                        dotScratch[worker].floats);
                continue;
            }
            long rowBytes = w.rowBytes();
            if (!vectorized) {
                IntegerDotKernel k = (IntegerDotKernel) Kernels.of(w.type());
                for (int r = r0; r < r1; r++) {
                    o[r] = k.dotQ8Scalar(w.data(), r * rowBytes, q8, cols);
                }
                continue;
            }
            try {
                sharedRows[m].invokeExact(w.data(), r0 * rowBytes, rowBytes, q8, cols, o, r0, r1 - r0);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t); // the row loops declare no checked exceptions
            }
        }
    }

    /**
     * Q4_1/Q5_1 against Q8_1 activations: llama.cpp multiplies each block minimum m by the f16 block
     * sum s of the activations, the float grid by their exact sum; this adds Σ_b m_b·(s_b − sum_b)
     * to each product (one pass over the block minima, 1/32 of the product's work).
     */
    private void addQ8_1SumCorrections(WeightMatrix w, float[] x, int xOff, int batch, float[] out, int outOff) {
        int cols = w.cols();
        int blocks = cols / 32;
        int blockBytes = (int) (w.rowBytes() / blocks);
        if (sumCorrections.length < batch * blocks) {
            sumCorrections = new float[batch * blocks];
        }
        float[] c = sumCorrections; // block-major: c[b * batch + t]
        pool.parallelFor(batch, (start, end, worker) -> {
            float[] token = new float[blocks];
            for (int t = start; t < end; t++) {
                VecDotType.q8_1SumCorrections(x, xOff + t * cols, cols, token, 0);
                for (int b = 0; b < blocks; b++) {
                    c[b * batch + t] = token[b];
                }
            }
        });
        MemorySegment seg = w.data();
        // a repacked Q4_1 matrix has its minimums as floats: the stored pages stay untouched
        MemorySegment copy = w.type() == GgmlType.Q4_1 ? w.interleaved() : null;
        long rowBytes = w.rowBytes();
        int rows = w.rows();
        pool.parallelFor(rows, (start, end, worker) -> {
            float[] m = new float[blocks];
            float[] sums = new float[batch];
            for (int r = start; r < end; r++) {
                long base = r * rowBytes;
                for (int b = 0; b < blocks; b++) {
                    m[b] = copy != null
                            ? Q4BlockInterleaved.minimum(copy, r, b, blocks)
                            : Float.float16ToFloat(seg.get(Layouts.SHORT, base + (long) b * blockBytes + 2));
                }
                if (vectorized) {
                    Q8_1Corrections.addRow(m, c, blocks, batch, sums, out, outOff, rows, r);
                } else {
                    Q8_1Corrections.addRowScalar(m, c, blocks, batch, out, outOff, rows, r);
                }
            }
        });
    }

    private void roundTokens(int start, int end, int worker) {
        roundInput(roundType, xs, xBase + start * cols, rounded, start * cols, (end - start) * cols);
    }

    /** {@link VecDotType#round}, on vectors for Q8_0/Q8_1/Q8_K (the same bits) unless this is the scalar twin. */
    private void roundInput(VecDotType type, float[] src, int srcOff, float[] dst, int dstOff, int n) {
        if (vectorized && (type == VecDotType.Q8_0 || type == VecDotType.Q8_1)) {
            QuantizedActivations.roundQ8_0(src, srcOff, dst, dstOff, n);
        } else if (vectorized && type == VecDotType.Q8_K) {
            QuantizedActivations.roundQ8K(src, srcOff, dst, dstOff, n);
        } else {
            type.round(src, srcOff, dst, dstOff, n);
        }
    }

    /** Pieces small enough that a delayed thread's share is picked up by the others ({@code perThread} per thread). */
    private int grain(int groups, int perThread) {
        return Math.max(1, groups / (pool.threads() * perThread));
    }

    private void packTokens(int start, int end, int worker) {
        for (int g = start; g < end; g++) {
            FloatLoops.pack(xs, xBase, cols, g * PACK, batch, packed, g * PACK * cols);
        }
    }

    /**
     * Matrix x vector: stream each row once through the type's fused dot. The vector dot is called
     * through a bound handle held in a field, which C2 cannot inline: a kernel that declares its own
     * dot stays a compilation of its own. Inlined here, the kernels of a model's two types (Q4_0
     * layers and a Q6_K output) would meet in one method, exceed C2's inlining budget and fall back
     * to boxed vectors, 10x slower. The types that inherit {@link TypeKernel#dot} (F16, Q5_1, Q2_K,
     * Q3_K, Q8_K here) still share that one default method, as the integer kernels shared
     * {@code dotQ8} before {@link #Q8_ROWS} was bound per kernel. The call costs a few ns per row.
     */
    private void matVecRows(int groupStart, int groupEnd, int worker) {
        final TypeKernel k = kernel;
        DotScratch wb = dotScratch[worker];
        final MemorySegment seg = data;
        final MethodHandle dot = this.dot;
        int rEnd = Math.min(rows, groupEnd * ROW_TILE);
        for (int r = groupStart * ROW_TILE; r < rEnd; r++) {
            out[outOff + r] = vectorized
                    ? invokeDot(dot, seg, r * rowBytes, wb)
                    : k.dotScalar(seg, r * rowBytes, xs, xBase, cols, wb);
        }
    }

    /** {@link #matVecRows} with the integer kernel against {@link #q8}: one call of the kernel's row loop per range. */
    private void matVecRowsQ8(int groupStart, int groupEnd, int worker) {
        int r0 = groupStart * ROW_TILE;
        int n = Math.min(rows, groupEnd * ROW_TILE) - r0;
        if (n <= 0) {
            return;
        }
        if (!vectorized) {
            final IntegerDotKernel k = (IntegerDotKernel) kernel;
            for (int r = r0; r < r0 + n; r++) {
                out[outOff + r] = k.dotQ8Scalar(data, r * rowBytes, q8, cols);
            }
            return;
        }
        try {
            q8Rows.invokeExact(data, r0 * rowBytes, rowBytes, q8, cols, out, outOff + r0, n);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t); // the row loops declare no checked exceptions
        }
    }

    /** Groups {@code [groupStart, groupEnd)} of a repacked decode product. */
    private void matVecInterleaved(int groupStart, int groupEnd, int worker) {
        int r0 = groupStart * Q4KInterleaved.ROWS;
        int n = Math.min(rows, groupEnd * Q4KInterleaved.ROWS) - r0;
        if (n > 0) {
            Interleaving.rows(
                    kernel.type(),
                    narrowQuants,
                    vectorized,
                    interleaved,
                    q8,
                    cols,
                    out,
                    outOff,
                    r0,
                    n,
                    dotScratch[worker].floats);
        }
    }

    private void packTokensQ8(int start, int end, int worker) {
        VecDotType type = Kernels.of(prefillType).vecDotType(); // Q8_0 or Q8_K
        for (int g = start; g < end; g++) {
            Q4_0IntegerTile.pack(
                    tokenQuantizers[worker],
                    vectorized,
                    type,
                    xs,
                    xBase,
                    cols,
                    g * Q4_0IntegerTile.TOKENS,
                    batch,
                    tokensQ8,
                    tokenScalesQ8,
                    tokenSumsQ8);
        }
    }

    /**
     * Q4_0, Q4_K or narrow Q8_0 prefill over the row groups {@code [groupStart, groupEnd)} of the
     * repacked copy, on 16-bit integer lanes ({@link Q4_0IntegerTile}, {@link Q4KIntegerTile},
     * {@link Q8_0NarrowTile}): per group and {@link #INTEGER_GROUPS} token groups, each column chunk
     * unpacked once, then tiles over 128 (Q4_0, Q8_0) or 256 (Q4_K) columns at a time, weights and
     * activations that stay in L1 or L2 across the tiles; the sums go on from chunk to chunk in
     * block order, so each token gets its decode product's bits.
     */
    private void matMulIntegerRows(int groupStart, int groupEnd, int worker) {
        final boolean k4 = prefillType == GgmlType.Q4_K;
        final boolean narrow = prefillType == GgmlType.Q8_0;
        final Q4_0IntegerTile.BlockTile tile = narrow ? Q8_0NarrowTile::tile : Q4_0IntegerTile::tile;
        final int tokens = Q4_0IntegerTile.TOKENS;
        final int group = Q4_0IntegerTile.GROUP;
        final short[] wq = integerWeights[worker];
        final float[] wd = integerScales[worker];
        final float[] acc = integerSums[worker];
        final float[] min = integerMins[worker];
        final int rows = this.rows;
        final int cols = this.cols;
        final int blockCols = k4 ? 256 : 32;
        final int blocks = cols / blockCols;
        final int step = k4 ? 1 : INTEGER_K_BLOCKS;
        final int kc = Math.min(kChunk, cols);
        final int tokenGroups = (batch + tokens - 1) / tokens;
        for (int g = groupStart; g < groupEnd; g++) {
            int r0 = g * group;
            int rn = Math.min(group, rows - r0);
            for (int tg0 = 0; tg0 < tokenGroups; tg0 += INTEGER_GROUPS) {
                int tgn = Math.min(INTEGER_GROUPS, tokenGroups - tg0);
                Arrays.fill(acc, 0, tgn * group * tokens, 0f);
                if (k4) {
                    Arrays.fill(min, 0, tgn * group * tokens, 0f);
                }
                for (int k0 = 0; k0 < cols; k0 += kc) {
                    int chunkBlocks = Math.min(kc, cols - k0) / blockCols;
                    int b0 = k0 / blockCols;
                    if (k4) {
                        Q4KInterleaved.unpackGroup(
                                vectorized,
                                prefillCopy,
                                g,
                                blocks,
                                b0,
                                chunkBlocks,
                                wq,
                                integerSubScales[worker],
                                integerSubMins[worker],
                                wd,
                                integerMinScales[worker]);
                    } else if (narrow && vectorized) {
                        Q8_0NarrowTile.unpack(prefillCopy, g, blocks, b0, chunkBlocks, wq, wd);
                    } else if (narrow) {
                        Q8_0NarrowTile.unpackScalar(prefillCopy, g, blocks, b0, chunkBlocks, wq, wd);
                    } else if (vectorized) {
                        Q4_0IntegerTile.unpack(prefillCopy, g, blocks, b0, chunkBlocks, wq, wd);
                    } else {
                        Q4_0IntegerTile.unpackScalar(prefillCopy, g, blocks, b0, chunkBlocks, wq, wd);
                    }
                    for (int kb = 0; kb < chunkBlocks; kb += step) {
                        int nb = Math.min(step, chunkBlocks - kb);
                        for (int tg = tg0; tg < tg0 + tgn; tg++) {
                            int xq = (tg * cols + k0 + blockCols * kb) * tokens;
                            int xd = (tg * blocks + b0 + kb) * tokens;
                            for (int s = 0; s < rn; s += Q4_0IntegerTile.ROWS) {
                                int a = ((tg - tg0) * group + s) * tokens;
                                int wOff = blockCols * kb * group + s;
                                if (k4) {
                                    tileQ4K(worker, wOff, kb, s, tg, b0 + kb, xq, xd, nb, a);
                                } else if (vectorized) {
                                    tile.run(
                                            wq,
                                            wOff,
                                            wd,
                                            kb * group + s,
                                            tokensQ8,
                                            xq,
                                            tokenScalesQ8,
                                            xd,
                                            nb,
                                            acc,
                                            a,
                                            integerTileScratch[worker]);
                                } else {
                                    Q4_0IntegerTile.tileScalar(
                                            wq, wOff, wd, kb * group + s, tokensQ8, xq, tokenScalesQ8, xd, nb, acc, a);
                                }
                            }
                        }
                    }
                }
                for (int tg = tg0; tg < tg0 + tgn; tg++) {
                    for (int t = 0; t < tokens && tg * tokens + t < batch; t++) {
                        int o = outOff + (tg * tokens + t) * rows + r0;
                        int a = (tg - tg0) * group * tokens + t;
                        for (int r = 0; r < rn; r++) {
                            out[o + r] = k4 ? acc[a + r * tokens] - min[a + r * tokens] : acc[a + r * tokens];
                        }
                    }
                }
            }
        }
    }

    /** One Q4_K tile of {@link #matMulIntegerRows}: rows {@code s..s+7} of the chunk's super-block {@code kb}, token group {@code tg}. */
    private void tileQ4K(int worker, int wOff, int kb, int s, int tg, int block, int xq, int xd, int nb, int a) {
        int subs = cols / 32;
        int sOff = 8 * kb * Q4_0IntegerTile.GROUP + s;
        int dOff = kb * Q4_0IntegerTile.GROUP + s;
        int xsOff = (tg * subs + 8 * block) * Q4_0IntegerTile.TOKENS;
        if (vectorized) {
            Q4KIntegerTile.tile(
                    integerWeights[worker],
                    wOff,
                    integerSubScales[worker],
                    integerSubMins[worker],
                    sOff,
                    integerScales[worker],
                    integerMinScales[worker],
                    dOff,
                    tokensQ8,
                    xq,
                    tokenScalesQ8,
                    xd,
                    tokenSumsQ8,
                    xsOff,
                    nb,
                    integerSums[worker],
                    integerMins[worker],
                    a,
                    integerTileScratch[worker],
                    integerBlockSums[worker]);
        } else {
            Q4KIntegerTile.tileScalar(
                    integerWeights[worker],
                    wOff,
                    integerSubScales[worker],
                    integerSubMins[worker],
                    sOff,
                    integerScales[worker],
                    integerMinScales[worker],
                    dOff,
                    tokensQ8,
                    xq,
                    tokenScalesQ8,
                    xd,
                    tokenSumsQ8,
                    xsOff,
                    nb,
                    integerSums[worker],
                    integerMins[worker],
                    a);
        }
    }

    /** Columns per panel of a token block of {@code tn}: as many chunks as keep its packed activations within panelBytes. */
    private int panelColumns(int tn, int kc) {
        int padded = (tn + PACK - 1) / PACK * PACK;
        return Math.max(kc, (panelBytes / (4 * padded)) / kc * kc);
    }

    /**
     * {@link #matMulRows} from a repacked matrix (at 512 bits): per group of 32 rows and column
     * chunk, the weights dequantized column-major ({@link Interleaving#dequantizeGroup}, the stored
     * dequantizer's values), then 8-row tiles ({@link FloatLoops#tile8x32T}) over k blocks of
     * {@link #K_BLOCK}: within a block every token pair and tile of the group runs on weights and
     * activations that stay in L1 (a whole chunk streamed them from L2 once per tile), and the
     * tiles continue their sums from block to block, so each lane still sums the chunk in k order
     * as the stored path does: the same bits, from one copy.
     */
    private void matMulRepackedRows(int groupStart, int groupEnd, int worker) {
        final GgmlType type = kernel.type();
        final MemorySegment seg = prefillCopy;
        final float[] wt = groupScratch[worker];
        final float[] acc = groupAccumulators[worker];
        final int rows = this.rows;
        final int cols = this.cols;
        final int kc = Math.min(kChunk, cols);
        final int tRows = FloatLoops.T_ROWS;
        final int tile = 2 * tRows * PACK; // one tile's sums: 8 rows x two token groups
        final int tilesPerGroup = Q4KInterleaved.ROWS / tRows;
        for (int t0 = 0; t0 < batch; t0 += tokenBlock) {
            int tn = Math.min(tokenBlock, batch - t0);
            int pairs = (tn + 2 * PACK - 1) / (2 * PACK);
            int panel = panelColumns(tn, kc);
            for (int p0 = 0; p0 < cols; p0 += panel) {
                int pEnd = Math.min(cols, p0 + panel);
                for (int g = groupStart; g < groupEnd; g++) {
                    int r0 = g * Q4KInterleaved.ROWS;
                    int rn = Math.min(Q4KInterleaved.ROWS, rows - r0);
                    int tiles = (rn + tRows - 1) / tRows;
                    for (int k0 = p0; k0 < pEnd; k0 += kc) {
                        int kn = Math.min(kc, pEnd - k0);
                        Interleaving.dequantizeGroup(type, true, seg, g, cols, k0, kn, wt);
                        Arrays.fill(acc, 0, pairs * tilesPerGroup * tile, 0f);
                        for (int kb = 0; kb < kn; kb += K_BLOCK) {
                            int kbn = Math.min(K_BLOCK, kn - kb);
                            for (int p = 0; p < pairs; p++) {
                                int tg = t0 + 2 * PACK * p;
                                int xa = tg * cols + (k0 + kb) * PACK; // group tg/16 starts at tg*cols
                                int xb = tg + PACK < t0 + tn ? xa + PACK * cols : xa;
                                for (int s = 0; s < tiles; s++) {
                                    FloatLoops.tile8x32T(
                                            wt,
                                            32 * kb + s * tRows,
                                            packed,
                                            xa,
                                            xb,
                                            kbn,
                                            acc,
                                            (p * tilesPerGroup + s) * tile);
                                }
                            }
                        }
                        for (int p = 0; p < pairs; p++) {
                            int tg = t0 + 2 * PACK * p;
                            boolean pair = tg + PACK < t0 + tn;
                            for (int s = 0; s < tiles; s++) {
                                int rs = s * tRows;
                                int rc = Math.min(tRows, rn - rs);
                                int a = (p * tilesPerGroup + s) * tile;
                                store(acc, a, rc, Math.min(PACK, batch - tg), outOff + tg * rows + r0 + rs, k0 > 0);
                                if (pair) {
                                    store(
                                            acc,
                                            a + tRows * PACK,
                                            rc,
                                            Math.min(PACK, batch - tg - PACK),
                                            outOff + (tg + PACK) * rows + r0 + rs,
                                            k0 > 0);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private float invokeDot(MethodHandle dot, MemorySegment seg, long offset, DotScratch wb) {
        try {
            return (float) dot.invokeExact(seg, offset, xs, xBase, cols, wb);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t); // dot declares no checked exceptions
        }
    }

    private void invokeDequantize(
            MethodHandle dequantize, MemorySegment seg, long offset, float[] dst, int dstOff, int count) {
        try {
            dequantize.invokeExact(seg, offset, dst, dstOff, count);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t); // dequantize declares no checked exceptions
        }
    }

    /**
     * Matrix x matrix over the row groups {@code [groupStart, groupEnd)}: the decoder is called
     * through its bound handle for the same reason as the dot in {@link #matVecRows} (Q4_K_M files
     * mix Q4_K and Q6_K), so only the tile is inlined here.
     */
    private void matMulRows(int groupStart, int groupEnd, int worker) {
        final TypeKernel k = kernel;
        final MethodHandle dequantize = this.dequantize;
        final float[] wb = weightScratch[worker];
        final float[] acc = tileScratch[worker];
        final MemorySegment seg = data;
        final int rows = this.rows;
        final int cols = this.cols;
        final int kc = Math.min(kChunk, cols);
        for (int t0 = 0; t0 < batch; t0 += tokenBlock) {
            int tn = Math.min(tokenBlock, batch - t0);
            int panel = panelColumns(tn, kc);
            for (int p0 = 0; p0 < cols; p0 += panel) {
                int pEnd = Math.min(cols, p0 + panel);
                for (int g = groupStart; g < groupEnd; g++) {
                    int r0 = g * PREFILL_ROWS;
                    int rn = Math.min(PREFILL_ROWS, rows - r0);
                    for (int k0 = p0; k0 < pEnd; k0 += kc) {
                        int kn = Math.min(kc, pEnd - k0);
                        long kByte = k.type().bytesFor(k0);
                        for (int i = 0; i < rn; i++) {
                            long off = (r0 + i) * rowBytes + kByte;
                            if (vectorized) {
                                invokeDequantize(dequantize, seg, off, wb, i * kc, kn);
                            } else {
                                k.dequantizeScalar(seg, off, wb, i * kc, kn);
                            }
                        }
                        for (int tg = t0; tg < t0 + tn; tg += PACK) {
                            int xp = tg * cols + k0 * PACK; // group tg/16 starts at tg*cols
                            if (wideTile && tg + PACK < t0 + tn) {
                                FloatLoops.tile6x32(wb, 0, kc, packed, xp, xp + PACK * cols, kn, acc);
                                store(acc, 0, rn, PACK, outOff + tg * rows + r0, k0 > 0);
                                tg += PACK;
                                store(
                                        acc,
                                        PREFILL_ROWS * PACK,
                                        rn,
                                        Math.min(PACK, batch - tg),
                                        outOff + tg * rows + r0,
                                        k0 > 0);
                                continue;
                            }
                            if (vectorized) {
                                FloatLoops.tile6x16(wb, 0, kc, packed, xp, kn, acc);
                            } else {
                                FloatLoops.tile6x16Scalar(wb, 0, kc, packed, xp, kn, acc);
                            }
                            store(acc, 0, rn, Math.min(PACK, batch - tg), outOff + tg * rows + r0, k0 > 0);
                        }
                    }
                }
            }
        }
    }

    /** The tile's valid rows x tokens into {@code out}, added to what is there after the first chunk. */
    private void store(float[] acc, int accOff, int rn, int tokens, int o, boolean add) {
        final float[] out = this.out;
        final int rows = this.rows;
        for (int t = 0; t < tokens; t++, o += rows) {
            for (int r = 0; r < rn; r++) {
                float v = acc[accOff + r * PACK + t];
                out[o + r] = add ? out[o + r] + v : v;
            }
        }
    }
}

package org.jacap.simd;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Matrix products with quantized weights: {@code out[outOff + b*rows + r] = Σ_c W[r][c] · x[xOff + b*cols + c]}
 * for every token {@code b < batch}. Batch 1 is decode (matrix × vector, memory-bound), larger
 * batches are prefill (matrix × matrix, compute-bound); both run the same blocked loop:
 *
 * <pre>
 *   threads split the rows (groups of 4);
 *   for each block of up to {@code tokenBlock} tokens
 *     for each panel of columns whose activations fit in L2
 *       for each group of 4 rows of this thread
 *         for each chunk of {@code kChunk} columns of the panel
 *           decode the 4 row pieces to floats once (per-thread scratch, stays in L1)
 *           run 4-row x 3-token register tiles over every token of the block
 * </pre>
 *
 * So each weight is decoded once per token block and reused by all its tokens, and a single
 * token streams each row from memory exactly once. With {@link Precision#NATIVE} the
 * activations are first rounded to the weight type's {@link VecDotType}.
 *
 * <p>Owns its scratch buffers: use one instance from one thread at a time. After the first call
 * with the largest shape, calls do not allocate.
 */
public final class MatMul {
    static final int ROW_TILE = 4;
    static final int TOKEN_TILE = 3;
    /** Activation bytes a column panel may take: about a third of a 512 KiB L2. */
    static final int PANEL_BYTES = 192 * 1024;

    private final ThreadPool pool;
    private final Precision precision;
    private final boolean vectorized;
    private final int kChunk;
    private final int tokenBlock;
    private final int panelBytes;
    private final float[][] weightScratch;
    private final ThreadPool.RangeTask task = this::runRowGroups;
    private float[] rounded = new float[0];

    // The call in flight, published to the workers by ThreadPool's generation counter.
    private TypeKernel kernel;
    private MemorySegment data;
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
        this(pool, precision, true, 1024, 48, PANEL_BYTES);
    }

    /** Tuning constructor (tests and benchmarks): chunk width, token block and activation panel budget. */
    MatMul(ThreadPool pool, Precision precision, boolean vectorized, int kChunk, int tokenBlock, int panelBytes) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.precision = Objects.requireNonNull(precision, "precision");
        if (kChunk % 256 != 0 || kChunk <= 0) {
            throw new IllegalArgumentException("kChunk must be a positive multiple of 256");
        }
        if (tokenBlock % TOKEN_TILE != 0 || tokenBlock <= 0) {
            throw new IllegalArgumentException("tokenBlock must be a positive multiple of " + TOKEN_TILE);
        }
        this.vectorized = vectorized;
        this.kChunk = kChunk;
        this.tokenBlock = tokenBlock;
        this.panelBytes = panelBytes;
        this.weightScratch = new float[pool.threads()][ROW_TILE * kChunk];
    }

    /** The scalar twin: same blocking, scalar decoders and scalar dot products (for tests and benchmarks). */
    public static MatMul scalarTwin(ThreadPool pool, Precision precision) {
        return new MatMul(pool, precision, false, 1024, 48, PANEL_BYTES);
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
        if (vdt == VecDotType.F32) {
            this.xs = x;
            this.xBase = xOff;
        } else {
            int n = batch * w.cols();
            if (rounded.length < n) {
                rounded = new float[n];
            }
            vdt.round(x, xOff, rounded, 0, n);
            this.xs = rounded;
            this.xBase = 0;
        }
        this.kernel = k;
        this.data = w.data();
        this.rowBytes = w.rowBytes();
        this.rows = w.rows();
        this.cols = w.cols();
        this.batch = batch;
        this.out = out;
        this.outOff = outOff;
        try {
            pool.parallelFor((rows + ROW_TILE - 1) / ROW_TILE, task);
        } finally {
            this.xs = null;
            this.out = null;
            this.data = null;
        }
    }

    private void runRowGroups(int groupStart, int groupEnd, int worker) {
        float[] wb = weightScratch[worker];
        if (batch == 1) {
            // Matrix x vector: stream each row once through the type's fused dot.
            final TypeKernel k = kernel;
            final MemorySegment seg = data;
            int rEnd = Math.min(rows, groupEnd * ROW_TILE);
            for (int r = groupStart * ROW_TILE; r < rEnd; r++) {
                out[outOff + r] = vectorized ? k.dot(seg, r * rowBytes, xs, xBase, cols, wb)
                        : k.dotScalar(seg, r * rowBytes, xs, xBase, cols, wb);
            }
            return;
        }
        final TypeKernel k = kernel;
        final MemorySegment seg = data;
        final int rows = this.rows;
        final int cols = this.cols;
        final int kc = Math.min(kChunk, cols);
        for (int t0 = 0; t0 < batch; t0 += tokenBlock) {
            int tn = Math.min(tokenBlock, batch - t0);
            // Column panel: as many chunks as keep tn rows of activations within panelBytes.
            int panel = Math.max(kc, (panelBytes / (4 * tn)) / kc * kc);
            for (int p0 = 0; p0 < cols; p0 += panel) {
                int pEnd = Math.min(cols, p0 + panel);
                for (int g = groupStart; g < groupEnd; g++) {
                    int r0 = g * ROW_TILE;
                    int rn = Math.min(ROW_TILE, rows - r0);
                    for (int k0 = p0; k0 < pEnd; k0 += kc) {
                        int kn = Math.min(kc, pEnd - k0);
                        long kByte = k.type().bytesFor(k0);
                        for (int i = 0; i < rn; i++) {
                            long off = (r0 + i) * rowBytes + kByte;
                            if (vectorized) {
                                k.dequantize(seg, off, wb, i * kc, kn);
                            } else {
                                k.dequantizeScalar(seg, off, wb, i * kc, kn);
                            }
                        }
                        tiles(wb, kc, rn, tn, kn, xBase + t0 * cols + k0, outOff + t0 * rows + r0, k0 > 0);
                    }
                }
            }
        }
    }

    /** All tokens of the block against the decoded rows. */
    private void tiles(float[] wb, int wStride, int rn, int tn, int kn, int x0, int o0, boolean add) {
        final float[] x = xs;
        final float[] out = this.out;
        final int cols = this.cols;
        final int rows = this.rows;
        if (!vectorized) {
            FloatLoops.tileScalar(rn, tn, wb, 0, wStride, x, x0, cols, kn, out, o0, rows, add);
            return;
        }
        if (rn == ROW_TILE) {
            int t = 0;
            for (; t + TOKEN_TILE <= tn; t += TOKEN_TILE) {
                FloatLoops.tile4x3(wb, 0, wStride, x, x0 + t * cols, cols, kn, out, o0 + t * rows, rows, add);
            }
            for (; t < tn; t++) {
                FloatLoops.tile4x1(wb, 0, wStride, x, x0 + t * cols, kn, out, o0 + t * rows, add);
            }
        } else {
            for (int i = 0; i < rn; i++) {
                int t = 0;
                for (; t + TOKEN_TILE <= tn; t += TOKEN_TILE) {
                    FloatLoops.tile1x3(wb, i * wStride, x, x0 + t * cols, cols, kn, out, o0 + t * rows + i, rows, add);
                }
                for (; t < tn; t++) {
                    FloatLoops.tile1x1(wb, i * wStride, x, x0 + t * cols, kn, out, o0 + t * rows + i, add);
                }
            }
        }
    }
}

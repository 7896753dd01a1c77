package org.jacap.simd;

/**
 * Per-thread working memory of the matrix-vector kernels ({@link TypeKernel#dot}): room for one
 * chunk of {@link TypeKernel#DOT_CHUNK} weights as floats, as unpacked signed bytes, and as
 * one scale per 16 weights. One instance per thread; the kernels allocate nothing.
 */
public final class DotScratch {
    final float[] floats = new float[TypeKernel.DOT_CHUNK];
    final byte[] bytes = new byte[TypeKernel.DOT_CHUNK];
    final float[] scales = new float[TypeKernel.DOT_CHUNK / 16];
}

package org.jacap.simd;

/**
 * Per-thread working memory of the matrix-vector kernels ({@link TypeKernel#dot}): room for one
 * chunk of {@link TypeKernel#DOT_CHUNK} weights as floats, as unpacked bytes, and two floats per 32
 * weights for their scales (Q6_K: a scale per 16; Q5_K: a scale and a minimum per 32). One instance
 * per thread; the kernels allocate nothing.
 */
public final class DotScratch {
    final float[] floats = new float[TypeKernel.DOT_CHUNK];
    final byte[] bytes = new byte[TypeKernel.DOT_CHUNK];
    final float[] scales = new float[TypeKernel.DOT_CHUNK / 16];
}

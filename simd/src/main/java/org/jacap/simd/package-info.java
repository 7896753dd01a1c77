/**
 * Transformer kernels on flat {@code float[]}/{@code double[]} arrays with explicit offsets,
 * vectorised with {@code jdk.incubator.vector} at the preferred species (8 float lanes on AVX2).
 *
 * <p>Every vector kernel has a scalar twin in this package, compared with it in the tests on random
 * data and on lengths that leave tails shorter than a vector: {@link org.jacap.simd.VectorOps} ↔
 * {@link org.jacap.simd.ScalarOps}; in the other classes the twin is the method of the same name with
 * the suffix {@code Scalar} ({@code RmsNorm.applyScalar}, {@code Softmax.inPlaceScalar},
 * {@code Activations.siluScalar}, {@code Attention.scoresScalar}, {@code Rope.rotateScalar}).
 *
 * <p>Conventions: a batch of rows of width n lives at {@code off + b·n}; ranges are checked on
 * entry ({@link java.lang.IndexOutOfBoundsException} before anything is written); kernels are
 * stateless static methods or immutable objects, safe to call from many threads on disjoint
 * outputs; hot loops allocate nothing. {@link org.jacap.simd.VectorSupport} reports the vector
 * width and warns when it is below 256 bits or the module is missing.
 *
 * <p>A vector carried from one loop iteration to the next (an accumulator) is only ever an
 * argument, never the receiver: {@code acc = v.add(acc)}, {@code x.fma(y, acc)}, not
 * {@code acc.add(v)}. C2 does not know the exact class of such a loop value, so a call on it is
 * devirtualized from type profiles, and the Vector API's shorthands ({@code add}, {@code mul}) share
 * one profile with every caller in the process. Once other code had run vectors of another width
 * through them (a prefill), C2 could leave the call virtual and run it as a boxed Java loop:
 * Q6_K's decode kernel did so in about half of the processes (2026-12-05, {@code Q6KKernel.blockWide}).
 *
 * <p>A large kernel writes its vector conversions ({@code convertShape}) inline, not through small
 * helper methods: each inlined helper costs C2 nodes of its own, and past its inlining budget
 * ({@code NodeCountInliningCutoff}) the remaining conversions stay calls and run boxed. The 32-row
 * Q4_K kernel ran at a third of the stored kernel's speed with eight such helpers and at 2.9 times
 * it with the same conversions inline ({@code Q4KInterleaved.groupWide}, 2026-12-05); its
 * minimums' term has a pass of its own for the same reason. {@code -XX:+PrintInlining} shows it;
 * in a JFR profile it shows as samples in {@code Objects.checkIndex} and {@code AbstractVector.convert0}
 * under the kernel ({@code Q6KInterleaved.groupWide}'s helpers, inlined 2026-12-05: JMH 1.1-1.2×).
 */
package org.jacap.simd;

package org.jacap.model;

import java.util.List;
import org.jacap.simd.WeightMatrix;

/**
 * All weights of a model, bound to their kernels; matrices stay quantized in the file mapping.
 *
 * @param tokenEmbedding [vocab rows × n_embd]; rows are dequantized one at a time on lookup
 * @param outputNorm     final RMSNorm
 * @param output         logit projection (the token embedding itself for tied models)
 * @param ropeFactors    per-pair RoPE frequency divisors ({@code rope_freqs.weight}), or null
 * @param layers         one entry per block
 */
public record ModelWeights(
        WeightMatrix tokenEmbedding,
        float[] outputNorm,
        WeightMatrix output,
        float[] ropeFactors,
        List<LayerWeights> layers) {

    public ModelWeights {
        layers = List.copyOf(layers);
    }
}

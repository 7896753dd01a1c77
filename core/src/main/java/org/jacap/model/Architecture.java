package org.jacap.model;

import java.util.ArrayList;
import java.util.List;
import org.jacap.JacapException;
import org.jacap.simd.RopeLayout;
import org.jacap.simd.WeightMatrix;

/**
 * What distinguishes one {@code general.architecture} from another: its RoPE layout, FFN
 * activation, per-block configuration and which tensors make up a block. Chosen once, by
 * {@link #forName}; the forward pass only sees the resulting {@link ModelConfig} and
 * {@link ModelWeights}.
 */
sealed interface Architecture permits LlamaArchitecture, QwenArchitecture, Gemma3Architecture, Phi3Architecture {

    List<String> SUPPORTED = List.of("llama", "qwen2", "qwen3", "gemma3", "phi3");

    /** The one switch from the file's architecture name to its binding. */
    static Architecture forName(String name) {
        return switch (name) {
            case "llama" -> new LlamaArchitecture();
            case "qwen2" -> QwenArchitecture.QWEN2;
            case "qwen3" -> QwenArchitecture.QWEN3;
            case "gemma3" -> new Gemma3Architecture();
            case "phi3" -> new Phi3Architecture();
            default ->
                throw new JacapException(
                        "unsupported architecture '" + name + "' (supported: " + String.join(", ", SUPPORTED) + ")");
        };
    }

    /** {@code general.architecture}, also the prefix of its hyperparameter keys. */
    String name();

    RopeLayout ropeLayout();

    default FfnActivation activation() {
        return FfnActivation.SILU;
    }

    /** Multiplier of the looked-up token embeddings. */
    default float embeddingScale(int embeddingLength) {
        return 1f;
    }

    /** Per-block configuration; by default every block is a copy of {@code global}. */
    default List<LayerConfig> layers(LayerConfig global, int blockCount, int embeddingLength, ArchMetadata m) {
        return ModelConfig.uniformLayers(global, blockCount);
    }

    /** The weights of block {@code layer.index()}. */
    LayerWeights bindLayer(WeightBinder b, LayerConfig layer, ModelConfig config);

    /** Binds the whole model: embeddings, blocks, final norm and output (tied when {@code output.weight} is absent). */
    default ModelWeights bind(WeightBinder b, ModelConfig c) {
        int embd = c.embeddingLength();
        WeightMatrix tokenEmbedding = b.matrix("token_embd.weight", c.vocabSize(), embd);
        List<LayerWeights> layers = new ArrayList<>(c.blockCount());
        for (LayerConfig layer : c.layers()) {
            layers.add(bindLayer(b, layer, c));
        }
        float[] outputNorm = b.vector("output_norm.weight", embd);
        WeightMatrix output = b.has("output.weight") ? b.matrix("output.weight", c.vocabSize(), embd) : tokenEmbedding;
        float[] ropeFactors = b.optionalVector("rope_freqs.weight", c.ropeDimension() / 2);
        if (ropeFactors != null) {
            for (int i = 0; i < ropeFactors.length; i++) {
                if (!(ropeFactors[i] > 0f) || !Float.isFinite(ropeFactors[i])) {
                    throw new JacapException("tensor 'rope_freqs.weight' holds " + ropeFactors[i] + " at " + i
                            + ": RoPE frequency factors must be positive and finite");
                }
            }
        }
        return new ModelWeights(tokenEmbedding, outputNorm, output, ropeFactors, layers);
    }
}

package org.jacap.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToIntFunction;
import org.jacap.JacapException;
import org.jacap.gguf.GgufMetadata;
import org.jacap.simd.RopeLayout;

/**
 * All hyperparameters of a model, read from GGUF metadata only; {@link #layers()} holds what may
 * differ per block (sliding window, RoPE base) so the forward pass reads one table instead of
 * testing the architecture.
 *
 * @param architecture     {@code general.architecture}
 * @param name             {@code general.name} (may be empty)
 * @param embeddingLength  model width
 * @param blockCount       number of blocks
 * @param headCount        query heads (same in every block)
 * @param headCountKv      key/value heads
 * @param keyLength        query/key head size
 * @param valueLength      value head size
 * @param feedForwardLength FFN hidden width
 * @param contextLength    training context
 * @param vocabSize        number of tokens
 * @param rmsNormEps       RMSNorm epsilon
 * @param ropeDimension    rotated dimensions per head
 * @param ropeBase         RoPE base of the global blocks
 * @param ropeScaling      context scaling of the global blocks
 * @param embeddingScale   multiplier of the looked-up token embeddings (Gemma: √n_embd)
 * @param activation       FFN gate activation
 * @param layers           per-block configuration, {@code blockCount} entries
 */
public record ModelConfig(
        String architecture,
        String name,
        int embeddingLength,
        int blockCount,
        int headCount,
        int headCountKv,
        int keyLength,
        int valueLength,
        int feedForwardLength,
        int contextLength,
        int vocabSize,
        float rmsNormEps,
        int ropeDimension,
        float ropeBase,
        RopeScaling ropeScaling,
        float embeddingScale,
        FfnActivation activation,
        List<LayerConfig> layers) {

    public ModelConfig {
        layers = List.copyOf(layers);
    }

    /** Reads the configuration; unknown architectures and unsupported settings fail with a clear message. */
    public static ModelConfig fromMetadata(GgufMetadata meta) {
        Architecture arch = Architecture.forName(meta.architecture());
        ArchMetadata m = new ArchMetadata(meta, arch.name());

        if (m.intOr("expert_count", 0) > 0) {
            throw new JacapException("mixture-of-experts models (" + m.key("expert_count") + " = "
                    + m.intOr("expert_count", 0) + ") are not supported");
        }
        int embd = positive(m, "embedding_length", m.requireInt("embedding_length"));
        int blocks = positive(m, "block_count", m.requireInt("block_count"));
        int heads = positive(m, "attention.head_count", m.requireInt("attention.head_count"));
        int headsKv = positive(m, "attention.head_count_kv", m.intOr("attention.head_count_kv", heads));
        if (heads % headsKv != 0) {
            throw new JacapException(
                    "attention.head_count " + heads + " is not a multiple of attention.head_count_kv " + headsKv);
        }
        int keyLength = positive(m, "attention.key_length", m.intOr("attention.key_length", embd / heads));
        int valueLength = positive(m, "attention.value_length", m.intOr("attention.value_length", embd / heads));
        int ff = positive(m, "feed_forward_length", m.requireInt("feed_forward_length"));
        int ctx = positive(m, "context_length", m.requireInt("context_length"));
        float eps = m.requireFloat("attention.layer_norm_rms_epsilon");
        if (!(eps > 0f) || !Float.isFinite(eps)) { // also false for NaN
            throw new JacapException("metadata key '" + m.key("attention.layer_norm_rms_epsilon")
                    + "' must be a positive finite number, got " + eps);
        }
        int ropeDim = m.intOr("rope.dimension_count", keyLength);
        if (ropeDim <= 0 || ropeDim > keyLength || ropeDim % 2 != 0) {
            throw new JacapException(m.key("rope.dimension_count") + " = " + ropeDim
                    + " must be even and at most the head size " + keyLength);
        }
        float ropeBase = m.floatOr("rope.freq_base", 10000f);
        if (!(ropeBase > 0f) || !Float.isFinite(ropeBase)) {
            throw new JacapException(
                    "metadata key '" + m.key("rope.freq_base") + "' must be a positive finite number, got " + ropeBase);
        }
        RopeScaling scaling = readRopeScaling(m);
        int vocab = vocabSize(meta, m);

        // The template of every block (block 0, full attention); Architecture.layers copies it per
        // block with the withers, naming what differs.
        LayerConfig global = new LayerConfig(
                0,
                heads,
                headsKv,
                keyLength,
                valueLength,
                ropeDim,
                ropeBase,
                scaling.frequencyScale(),
                arch.ropeLayout(),
                LayerConfig.FULL_ATTENTION,
                (float) (1.0 / Math.sqrt(keyLength)));
        List<LayerConfig> layers = arch.layers(global, blocks, embd, m);
        return new ModelConfig(
                arch.name(),
                meta.getString("general.name", ""),
                embd,
                blocks,
                heads,
                headsKv,
                keyLength,
                valueLength,
                ff,
                ctx,
                vocab,
                eps,
                ropeDim,
                ropeBase,
                scaling,
                arch.embeddingScale(embd),
                arch.activation(),
                layers);
    }

    private static int positive(ArchMetadata m, String suffix, int value) {
        if (value <= 0) {
            throw new JacapException("metadata key '" + m.key(suffix) + "' must be positive, got " + value);
        }
        return value;
    }

    private static RopeScaling readRopeScaling(ArchMetadata m) {
        float factor = m.floatOr("rope.scaling.factor", m.floatOr("rope.scale_linear", 0f));
        if (!(factor >= 0f) || !Float.isFinite(factor)) {
            throw new JacapException(
                    "metadata key '" + m.key("rope.scaling.factor") + "' must be a finite number >= 0, got " + factor);
        }
        String type = m.stringOr("rope.scaling.type", factor == 0f || factor == 1f ? "none" : "linear")
                .toLowerCase(Locale.ROOT);
        int original = m.intOr("rope.scaling.original_context_length", 0);
        return switch (type) {
            case "none" -> RopeScaling.NONE;
            case "linear" ->
                factor == 0f || factor == 1f ? RopeScaling.NONE : new RopeScaling("linear", factor, original);
            default ->
                throw new JacapException("RoPE scaling type '" + type + "' (" + m.key("rope.scaling.type")
                        + ") is not supported (supported: none, linear)");
        };
    }

    private static int vocabSize(GgufMetadata meta, ArchMetadata m) {
        if (meta.contains("tokenizer.ggml.tokens")) {
            return meta.getArray("tokenizer.ggml.tokens").length();
        }
        if (m.has("vocab_size")) {
            return m.requireInt("vocab_size");
        }
        throw new JacapException("the vocabulary size is unknown: neither 'tokenizer.ggml.tokens' nor '"
                + m.key("vocab_size") + "' is present");
    }

    /** The same template for every block. */
    static List<LayerConfig> uniformLayers(LayerConfig t, int blocks) {
        List<LayerConfig> out = new ArrayList<>(blocks);
        for (int il = 0; il < blocks; il++) {
            out.add(t.withIndex(il).withSlidingWindow(LayerConfig.FULL_ATTENTION));
        }
        return out;
    }

    public LayerConfig layer(int index) {
        return layers.get(index);
    }

    /** The largest of {@code f} over the blocks, 0 without blocks (scratch sizing). */
    public int maxOverLayers(ToIntFunction<LayerConfig> f) {
        return layers.stream().mapToInt(f).max().orElse(0);
    }

    /** Widest attention query over blocks (scratch sizing). */
    public int maxQueryDim() {
        return maxOverLayers(LayerConfig::queryDim);
    }

    public int maxAttentionOutputDim() {
        return maxOverLayers(LayerConfig::attentionOutputDim);
    }

    public int maxKeyDim() {
        return maxOverLayers(LayerConfig::keyDim);
    }

    public int maxValueDim() {
        return maxOverLayers(LayerConfig::valueDim);
    }

    /** RoPE layout of the architecture (all blocks share it). */
    public RopeLayout ropeLayout() {
        return layers.get(0).ropeLayout();
    }
}

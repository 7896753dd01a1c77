package org.jacap.bench.synthetic;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jacap.gguf.GgmlType;
import org.jacap.gguf.GgufValue;
import org.jacap.gguf.GgufValue.ArrayValue;
import org.jacap.gguf.GgufValueType;

/**
 * Everything a synthetic Llama GGUF holds except the weight values: metadata (hyperparameters and
 * tokenizer) and the tensor list in llama.cpp's order. Tied embeddings: no output.weight.
 */
public record SyntheticPlan(
        SyntheticShape shape,
        SyntheticType type,
        long seed,
        Map<String, GgufValue> metadata,
        List<TensorPlan> tensors) {

    /** Weight scale: N(0, 0.02²), as Llama initialisation (keeps activations finite). */
    static final float WEIGHT_STD = 0.02f;

    static final float NORM_EPS = 1e-5f;

    public SyntheticPlan {
        metadata = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        tensors = List.copyOf(tensors);
    }

    public static SyntheticPlan of(SyntheticShape shape, SyntheticType type, long seed) {
        return new SyntheticPlan(shape, type, seed, metadata(shape, type, seed), tensors(shape, type));
    }

    /** Name of the cached file: {@code synthetic-<shape>-<type>-<seed>.gguf}. */
    public String fileName() {
        return "synthetic-" + shape.id() + "-" + type.id() + "-" + seed + ".gguf";
    }

    public long tensorBytes() {
        long sum = 0;
        for (TensorPlan t : tensors) {
            sum += t.byteSize();
        }
        return sum;
    }

    public long parameterCount() {
        long sum = 0;
        for (TensorPlan t : tensors) {
            sum += t.elements();
        }
        return sum;
    }

    private static Map<String, GgufValue> metadata(SyntheticShape s, SyntheticType t, long seed) {
        Map<String, GgufValue> m = new LinkedHashMap<>();
        m.put("general.architecture", str("llama"));
        m.put("general.name", str("jacap synthetic " + s.id() + " " + t.id() + " seed " + seed));
        m.put("general.size_label", str(s.sizeLabel()));
        m.put("general.file_type", u32(t.fileType()));
        m.put("general.quantization_version", u32(2));
        m.put("llama.vocab_size", u32(s.vocabulary()));
        m.put("llama.context_length", u32(s.contextLength()));
        m.put("llama.embedding_length", u32(s.embedding()));
        m.put("llama.block_count", u32(s.layers()));
        m.put("llama.feed_forward_length", u32(s.feedForward()));
        m.put("llama.rope.dimension_count", u32(s.headDim()));
        m.put("llama.attention.head_count", u32(s.heads()));
        m.put("llama.attention.head_count_kv", u32(s.kvHeads()));
        m.put("llama.attention.layer_norm_rms_epsilon", f32(NORM_EPS));
        m.put("llama.rope.freq_base", f32(s.ropeBase()));
        SyntheticVocabulary vocab = SyntheticVocabulary.of(s.vocabulary());
        m.put("tokenizer.ggml.model", str("llama"));
        m.put("tokenizer.ggml.pre", str("default"));
        m.put("tokenizer.ggml.tokens", ArrayValue.ofStrings(vocab.tokens()));
        double[] scores = new double[vocab.size()];
        long[] types = new long[vocab.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = vocab.scores()[i];
            types[i] = vocab.types()[i];
        }
        m.put("tokenizer.ggml.scores", ArrayValue.ofDoubles(GgufValueType.FLOAT32, scores));
        m.put("tokenizer.ggml.token_type", ArrayValue.ofLongs(GgufValueType.INT32, types));
        m.put("tokenizer.ggml.bos_token_id", u32(SyntheticVocabulary.BOS_ID));
        m.put("tokenizer.ggml.eos_token_id", u32(SyntheticVocabulary.EOS_ID));
        m.put("tokenizer.ggml.unknown_token_id", u32(SyntheticVocabulary.UNK_ID));
        m.put("tokenizer.ggml.add_bos_token", new GgufValue.BoolValue(true));
        m.put("tokenizer.ggml.add_eos_token", new GgufValue.BoolValue(false));
        return m;
    }

    private static List<TensorPlan> tensors(SyntheticShape s, SyntheticType t) {
        long e = s.embedding();
        long kv = (long) s.kvHeads() * s.headDim();
        long ff = s.feedForward();
        TensorPlan.Fill weights = new TensorPlan.Normal(WEIGHT_STD);
        TensorPlan.Fill ones = new TensorPlan.Constant(1f);
        List<TensorPlan> list = new ArrayList<>();
        list.add(new TensorPlan("token_embd.weight", new long[] {e, s.vocabulary()}, t.outputType(), weights));
        if (s.llama3RopeFactors()) {
            list.add(new TensorPlan(
                    "rope_freqs.weight",
                    new long[] {s.headDim() / 2},
                    GgmlType.F32,
                    new TensorPlan.Values(llama3RopeFactors(s.headDim(), s.ropeBase()))));
        }
        int n = s.layers();
        for (int l = 0; l < n; l++) {
            String b = "blk." + l + ".";
            list.add(new TensorPlan(b + "attn_norm.weight", new long[] {e}, GgmlType.F32, ones));
            list.add(new TensorPlan(b + "attn_q.weight", new long[] {e, e}, t.layerType("attn_q", l, n), weights));
            list.add(new TensorPlan(b + "attn_k.weight", new long[] {e, kv}, t.layerType("attn_k", l, n), weights));
            list.add(new TensorPlan(b + "attn_v.weight", new long[] {e, kv}, t.layerType("attn_v", l, n), weights));
            list.add(new TensorPlan(
                    b + "attn_output.weight", new long[] {e, e}, t.layerType("attn_output", l, n), weights));
            list.add(new TensorPlan(b + "ffn_norm.weight", new long[] {e}, GgmlType.F32, ones));
            list.add(new TensorPlan(b + "ffn_gate.weight", new long[] {e, ff}, t.layerType("ffn_gate", l, n), weights));
            list.add(new TensorPlan(b + "ffn_up.weight", new long[] {e, ff}, t.layerType("ffn_up", l, n), weights));
            list.add(new TensorPlan(b + "ffn_down.weight", new long[] {ff, e}, t.layerType("ffn_down", l, n), weights));
        }
        list.add(new TensorPlan("output_norm.weight", new long[] {e}, GgmlType.F32, ones));
        return list;
    }

    /**
     * Llama-3.1/3.2 RoPE scaling as frequency divisors (factor 32, low 1, high 4, original
     * context 8192): long wavelengths are slowed 32×, short ones kept, the band between blended.
     */
    static float[] llama3RopeFactors(int headDim, float base) {
        double factor = 32;
        double low = 1;
        double high = 4;
        double original = 8192;
        double lowWavelength = original / low;
        double highWavelength = original / high;
        float[] f = new float[headDim / 2];
        for (int i = 0; i < f.length; i++) {
            double freq = Math.pow(base, -2.0 * i / headDim);
            double wavelength = 2 * Math.PI / freq;
            if (wavelength < highWavelength) {
                f[i] = 1f;
            } else if (wavelength > lowWavelength) {
                f[i] = (float) factor;
            } else {
                double smooth = (original / wavelength - low) / (high - low);
                f[i] = (float) (1 / ((1 - smooth) / factor + smooth));
            }
        }
        return f;
    }

    private static GgufValue str(String s) {
        return new GgufValue.StringValue(s);
    }

    private static GgufValue u32(long v) {
        return new GgufValue.IntValue(GgufValueType.UINT32, v);
    }

    private static GgufValue f32(float v) {
        return new GgufValue.FloatValue(GgufValueType.FLOAT32, v);
    }
}

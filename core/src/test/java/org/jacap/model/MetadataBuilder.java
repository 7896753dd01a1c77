package org.jacap.model;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jacap.gguf.GgufMetadata;
import org.jacap.gguf.GgufValue;
import org.jacap.gguf.GgufValueType;

/** Synthetic metadata for configuration tests. */
final class MetadataBuilder {
    private final Map<String, GgufValue> values = new LinkedHashMap<>();
    private final String arch;

    MetadataBuilder(String arch) {
        this.arch = arch;
        string("general.architecture", arch);
        integer(arch + ".embedding_length", 64);
        integer(arch + ".block_count", 8);
        integer(arch + ".attention.head_count", 8);
        integer(arch + ".attention.head_count_kv", 4);
        integer(arch + ".feed_forward_length", 128);
        integer(arch + ".context_length", 1024);
        real(arch + ".attention.layer_norm_rms_epsilon", 1e-6);
        values.put("tokenizer.ggml.tokens", GgufValue.ArrayValue.ofStrings(new String[100]));
    }

    static MetadataBuilder of(String arch) {
        return new MetadataBuilder(arch);
    }

    MetadataBuilder integer(String key, long v) {
        values.put(key.startsWith(".") ? arch + key : key, new GgufValue.IntValue(GgufValueType.UINT32, v));
        return this;
    }

    MetadataBuilder real(String key, double v) {
        values.put(key.startsWith(".") ? arch + key : key, new GgufValue.FloatValue(GgufValueType.FLOAT32, v));
        return this;
    }

    MetadataBuilder string(String key, String v) {
        values.put(key.startsWith(".") ? arch + key : key, new GgufValue.StringValue(v));
        return this;
    }

    MetadataBuilder ints(String key, long... v) {
        values.put(key.startsWith(".") ? arch + key : key, GgufValue.ArrayValue.ofLongs(GgufValueType.INT32, v));
        return this;
    }

    MetadataBuilder bools(String key, boolean... v) {
        values.put(key.startsWith(".") ? arch + key : key, GgufValue.ArrayValue.ofBools(v));
        return this;
    }

    MetadataBuilder remove(String key) {
        values.remove(key.startsWith(".") ? arch + key : key);
        return this;
    }

    GgufMetadata build() {
        return new GgufMetadata(values);
    }

    ModelConfig config() {
        return ModelConfig.fromMetadata(build());
    }
}

package org.jacap.model;

import java.util.Optional;
import org.jacap.JacapException;
import org.jacap.gguf.GgufMetadata;
import org.jacap.gguf.GgufValue;

/** Reads {@code {arch}.*} hyperparameters, with scalar-or-per-layer-array handling in one place. */
final class ArchMetadata {
    private final GgufMetadata meta;
    private final String prefix;

    ArchMetadata(GgufMetadata meta, String architecture) {
        this.meta = meta;
        this.prefix = architecture + ".";
    }

    GgufMetadata raw() {
        return meta;
    }

    String key(String suffix) {
        return prefix + suffix;
    }

    boolean has(String suffix) {
        return meta.contains(key(suffix));
    }

    int requireInt(String suffix) {
        return uniformInt(suffix).orElseThrow(() -> new JacapException("missing metadata key '" + key(suffix) + "'"));
    }

    int intOr(String suffix, int defaultValue) {
        return uniformInt(suffix).orElse(defaultValue);
    }

    float requireFloat(String suffix) {
        if (!has(suffix)) {
            throw new JacapException("missing metadata key '" + key(suffix) + "'");
        }
        return meta.getFloat(key(suffix));
    }

    float floatOr(String suffix, float defaultValue) {
        return meta.getFloat(key(suffix), defaultValue);
    }

    String stringOr(String suffix, String defaultValue) {
        return meta.getString(key(suffix), defaultValue);
    }

    /**
     * An integer that some files store per layer (an array): a scalar, or an array whose entries
     * are all equal. Arrays with different values describe per-layer shapes Jacap does not run.
     */
    Optional<Integer> uniformInt(String suffix) {
        String k = key(suffix);
        Optional<GgufValue> v = meta.get(k);
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (v.get() instanceof GgufValue.ArrayValue) {
            int[] values = meta.getIntArray(k);
            if (values.length == 0) {
                throw new JacapException("metadata key '" + k + "' is an empty array");
            }
            for (int x : values) {
                if (x != values[0]) {
                    throw new JacapException(
                            "metadata key '" + k + "' differs per layer (" + java.util.Arrays.toString(values)
                                    + "); models with per-layer " + suffix + " are not supported");
                }
            }
            return Optional.of(values[0]);
        }
        return Optional.of(meta.getInt(k));
    }
}

package org.jacap.gguf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Typed access to a GGUF file's key/value metadata, in file order. Getters without a default
 * fail with a {@link GgufMetadataException} that names the key: missing, or of the wrong type.
 */
public final class GgufMetadata {
    private final Map<String, GgufValue> values;

    public GgufMetadata(Map<String, GgufValue> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public boolean contains(String key) {
        return values.containsKey(key);
    }

    /** All keys in file order. */
    public Set<String> keys() {
        return values.keySet();
    }

    public Map<String, GgufValue> asMap() {
        return values;
    }

    public Optional<GgufValue> get(String key) {
        return Optional.ofNullable(values.get(key));
    }

    private GgufValue require(String key) {
        GgufValue v = values.get(key);
        if (v == null) {
            throw new GgufMetadataException("missing metadata key '" + key + "'");
        }
        return v;
    }

    private static GgufMetadataException wrongType(String key, GgufValue v, String expected) {
        String actual = v instanceof GgufValue.ArrayValue a
                ? "ARRAY of " + a.elementType()
                : v.type().toString();
        return new GgufMetadataException("metadata key '" + key + "' has type " + actual + ", expected " + expected);
    }

    public long getLong(String key) {
        if (require(key) instanceof GgufValue.IntValue i) {
            return i.value();
        }
        throw wrongType(key, values.get(key), "an integer");
    }

    public long getLong(String key, long defaultValue) {
        return contains(key) ? getLong(key) : defaultValue;
    }

    public int getInt(String key) {
        long v = getLong(key);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new GgufMetadataException("metadata key '" + key + "' = " + v + " does not fit an int");
        }
        return (int) v;
    }

    public int getInt(String key, int defaultValue) {
        return contains(key) ? getInt(key) : defaultValue;
    }

    /** A float or integer value as double. */
    public double getDouble(String key) {
        GgufValue v = require(key);
        if (v instanceof GgufValue.FloatValue f) {
            return f.value();
        }
        if (v instanceof GgufValue.IntValue i) {
            return i.value();
        }
        throw wrongType(key, v, "a number");
    }

    public double getDouble(String key, double defaultValue) {
        return contains(key) ? getDouble(key) : defaultValue;
    }

    public float getFloat(String key) {
        return (float) getDouble(key);
    }

    public float getFloat(String key, float defaultValue) {
        return contains(key) ? getFloat(key) : defaultValue;
    }

    public boolean getBoolean(String key) {
        if (require(key) instanceof GgufValue.BoolValue b) {
            return b.value();
        }
        throw wrongType(key, values.get(key), "a bool");
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        return contains(key) ? getBoolean(key) : defaultValue;
    }

    public String getString(String key) {
        if (require(key) instanceof GgufValue.StringValue s) {
            return s.value();
        }
        throw wrongType(key, values.get(key), "a string");
    }

    public String getString(String key, String defaultValue) {
        return contains(key) ? getString(key) : defaultValue;
    }

    public GgufValue.ArrayValue getArray(String key) {
        if (require(key) instanceof GgufValue.ArrayValue a) {
            return a;
        }
        throw wrongType(key, values.get(key), "an array");
    }

    public String[] getStringArray(String key) {
        GgufValue.ArrayValue a = getArray(key);
        if (a.elementType() != GgufValueType.STRING) {
            throw wrongType(key, a, "an array of strings");
        }
        return a.strings().clone();
    }

    public float[] getFloatArray(String key) {
        GgufValue.ArrayValue a = getArray(key);
        float[] out = new float[a.length()];
        if (a.elementType().isFloat()) {
            for (int i = 0; i < out.length; i++) {
                out[i] = (float) a.doubles()[i];
            }
        } else if (a.elementType().isInteger()) {
            for (int i = 0; i < out.length; i++) {
                out[i] = a.longs()[i];
            }
        } else {
            throw wrongType(key, a, "an array of numbers");
        }
        return out;
    }

    public int[] getIntArray(String key) {
        GgufValue.ArrayValue a = getArray(key);
        if (!a.elementType().isInteger()) {
            throw wrongType(key, a, "an array of integers");
        }
        int[] out = new int[a.length()];
        for (int i = 0; i < out.length; i++) {
            long v = a.longs()[i];
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                throw new GgufMetadataException(
                        "metadata key '" + key + "'[" + i + "] = " + v + " does not fit an int");
            }
            out[i] = (int) v;
        }
        return out;
    }

    /** {@code general.architecture}, or an error naming the key. */
    public String architecture() {
        return getString("general.architecture");
    }
}

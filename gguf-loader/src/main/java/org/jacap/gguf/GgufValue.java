package org.jacap.gguf;

import java.util.Arrays;

/** One metadata value. Arrays keep their elements in primitive arrays (token lists are large). */
public sealed interface GgufValue {

    GgufValueType type();

    /** Any integer type; unsigned 64-bit values above Long.MAX_VALUE are stored as their bit pattern. */
    record IntValue(GgufValueType type, long value) implements GgufValue {}

    record FloatValue(GgufValueType type, double value) implements GgufValue {}

    record BoolValue(boolean value) implements GgufValue {
        @Override
        public GgufValueType type() {
            return GgufValueType.BOOL;
        }
    }

    record StringValue(String value) implements GgufValue {
        @Override
        public GgufValueType type() {
            return GgufValueType.STRING;
        }
    }

    /**
     * An array. Exactly one of the backing arrays is used, chosen by {@code elementType}:
     * integers in {@code longs}, floats in {@code doubles}, bools in {@code bools}, strings in
     * {@code strings}, nested arrays in {@code arrays}.
     */
    record ArrayValue(
            GgufValueType elementType,
            long[] longs,
            double[] doubles,
            boolean[] bools,
            String[] strings,
            ArrayValue[] arrays)
            implements GgufValue {

        @Override
        public GgufValueType type() {
            return GgufValueType.ARRAY;
        }

        public int length() {
            return switch (elementType) {
                case FLOAT32, FLOAT64 -> doubles.length;
                case BOOL -> bools.length;
                case STRING -> strings.length;
                case ARRAY -> arrays.length;
                default -> longs.length;
            };
        }

        public static ArrayValue ofLongs(GgufValueType t, long[] v) {
            return new ArrayValue(t, v, null, null, null, null);
        }

        public static ArrayValue ofDoubles(GgufValueType t, double[] v) {
            return new ArrayValue(t, null, v, null, null, null);
        }

        public static ArrayValue ofBools(boolean[] v) {
            return new ArrayValue(GgufValueType.BOOL, null, null, v, null, null);
        }

        public static ArrayValue ofStrings(String[] v) {
            return new ArrayValue(GgufValueType.STRING, null, null, null, v, null);
        }

        public static ArrayValue ofArrays(ArrayValue[] v) {
            return new ArrayValue(GgufValueType.ARRAY, null, null, null, null, v);
        }

        /** Structural equality (records compare arrays by identity). */
        public boolean sameContent(ArrayValue o) {
            if (elementType != o.elementType) {
                return false;
            }
            if (arrays == null) {
                return Arrays.equals(longs, o.longs)
                        && Arrays.equals(doubles, o.doubles)
                        && Arrays.equals(bools, o.bools)
                        && Arrays.equals(strings, o.strings);
            }
            if (o.arrays == null || arrays.length != o.arrays.length) {
                return false;
            }
            for (int i = 0; i < arrays.length; i++) {
                if (!arrays[i].sameContent(o.arrays[i])) {
                    return false;
                }
            }
            return true;
        }
    }

    /** True when both values hold the same type and content (arrays by content). */
    static boolean sameContent(GgufValue a, GgufValue b) {
        if (a instanceof ArrayValue x && b instanceof ArrayValue y) {
            return x.sameContent(y);
        }
        return a.equals(b);
    }
}

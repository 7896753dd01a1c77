package org.jacap.cli;

import org.jacap.gguf.GgufValue;
import org.jacap.gguf.GgufValueType;

/**
 * Renders metadata values as text for {@code jacap inspect}. Abbreviated form: strings cut after
 * {@link #MAX_STRING_CHARS} characters, arrays after their first few elements with the total;
 * control characters are escaped so that one value stays on one line.
 */
final class ValueText {
    static final int MAX_STRING_CHARS = 60;
    static final int MAX_ARRAY_ELEMENTS = 8;
    static final int MAX_ARRAY_CHARS = 100;

    private ValueText() {}

    /** Type column: {@code UINT32}, {@code STRING}, {@code [STRING]} for an array of strings. */
    static String typeName(GgufValue v) {
        return v instanceof GgufValue.ArrayValue a
                ? "[" + a.elementType() + "]"
                : v.type().toString();
    }

    /** One-line, abbreviated value; strings quoted. */
    static String abbreviated(GgufValue v) {
        return switch (v) {
            case GgufValue.StringValue s -> quoted(s.value(), MAX_STRING_CHARS);
            case GgufValue.ArrayValue a -> array(a, true);
            default -> scalar(v);
        };
    }

    /** The whole value on one line (arrays in full, strings escaped and quoted). */
    static String full(GgufValue v) {
        return switch (v) {
            case GgufValue.StringValue s -> quoted(s.value(), Integer.MAX_VALUE);
            case GgufValue.ArrayValue a -> array(a, false);
            default -> scalar(v);
        };
    }

    static String scalar(GgufValue v) {
        return switch (v) {
            case GgufValue.IntValue i -> integer(i.type(), i.value());
            case GgufValue.FloatValue f -> floating(f.type(), f.value());
            case GgufValue.BoolValue b -> Boolean.toString(b.value());
            case GgufValue.StringValue s -> s.value();
            case GgufValue.ArrayValue a -> array(a, false);
        };
    }

    static String integer(GgufValueType type, long v) {
        return type == GgufValueType.UINT64 ? Long.toUnsignedString(v) : Long.toString(v);
    }

    /** FLOAT32 values print as the float they are (1.0E-5, not 9.99999974737875E-6). */
    static String floating(GgufValueType type, double v) {
        return type == GgufValueType.FLOAT32 ? Float.toString((float) v) : Double.toString(v);
    }

    /** Element {@code i} of an array, strings quoted and escaped. */
    static String element(GgufValue.ArrayValue a, int i, int maxStringChars) {
        return switch (a.elementType()) {
            case STRING -> quoted(a.strings()[i], maxStringChars);
            case ARRAY -> array(a.arrays()[i], maxStringChars != Integer.MAX_VALUE);
            case BOOL -> Boolean.toString(a.bools()[i]);
            case FLOAT32, FLOAT64 -> floating(a.elementType(), a.doubles()[i]);
            default -> integer(a.elementType(), a.longs()[i]);
        };
    }

    private static String array(GgufValue.ArrayValue a, boolean abbreviate) {
        int n = a.length();
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            if (abbreviate && (i == MAX_ARRAY_ELEMENTS || sb.length() > MAX_ARRAY_CHARS)) {
                return sb.append(", … (").append(n).append(" total)]").toString();
            }
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(element(a, i, abbreviate ? 24 : Integer.MAX_VALUE));
        }
        return sb.append(']').toString();
    }

    /** Single-quoted, with control characters and quotes escaped, cut after {@code max} characters. */
    static String quoted(String s, int max) {
        String body = escaped(s.length() > max ? s.substring(0, max) : s).replace("'", "\\'");
        return "'" + body + "'" + (s.length() > max ? "… (" + s.length() + " chars)" : "");
    }

    /** Control characters as \n, \t, \r or \xNN, backslashes doubled: one line, safe for a terminal. */
    static String escaped(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}

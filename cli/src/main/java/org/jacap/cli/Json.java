package org.jacap.cli;

import java.util.List;
import java.util.Map;

/**
 * A small JSON serializer for {@code --json} output (no dependency needed for writing): maps (in
 * their order), lists, strings, numbers, booleans, null, and {@link NumberText} that is already
 * valid JSON. Arrays of scalars and small objects of scalars (a tensor, a metadata entry) stay on
 * one line; other objects are indented by two spaces.
 */
final class Json {
    /** A number already formatted as JSON (e.g. an unsigned 64-bit value). */
    record NumberText(String text) {}

    private Json() {}

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> string(sb, s);
            case Boolean b -> sb.append(b);
            case Double d -> number(sb, d, Double.toString(d));
            case Float f -> number(sb, f, Float.toString(f));
            case Number n -> sb.append(n.longValue());
            case NumberText t -> sb.append(t.text());
            case Map<?, ?> m -> object(sb, m, indent);
            case List<?> l -> array(sb, l, indent);
            default -> throw new IllegalArgumentException("cannot write " + v.getClass() + " as JSON");
        }
    }

    /** JSON has no NaN or infinities: they are written as the strings "NaN", "Infinity", "-Infinity". */
    private static void number(StringBuilder sb, double d, String text) {
        if (Double.isFinite(d)) {
            sb.append(text); // Java's shortest repr, e.g. 1.0E-5: valid JSON
        } else {
            string(sb, text);
        }
    }

    private static final int MAX_INLINE_ENTRIES = 10;

    private static boolean flat(Object v) {
        return !(v instanceof Map)
                && !(v instanceof List<?> l && l.stream().anyMatch(x -> x instanceof Map || x instanceof List));
    }

    private static void object(StringBuilder sb, Map<?, ?> m, int indent) {
        if (m.isEmpty()) {
            sb.append("{}");
            return;
        }
        if (m.size() <= MAX_INLINE_ENTRIES && m.values().stream().allMatch(Json::flat)) {
            sb.append('{');
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(i++ > 0 ? ", " : "");
                string(sb, e.getKey().toString());
                sb.append(": ");
                write(sb, e.getValue(), indent);
            }
            sb.append('}');
            return;
        }
        sb.append("{\n");
        int i = 0;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            pad(sb, indent + 1);
            string(sb, e.getKey().toString());
            sb.append(": ");
            write(sb, e.getValue(), indent + 1);
            sb.append(++i < m.size() ? ",\n" : "\n");
        }
        pad(sb, indent);
        sb.append('}');
    }

    private static void array(StringBuilder sb, List<?> l, int indent) {
        if (flat(l)) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                write(sb, l.get(i), indent);
            }
            sb.append(']');
            return;
        }
        sb.append("[\n");
        for (int i = 0; i < l.size(); i++) {
            pad(sb, indent + 1);
            write(sb, l.get(i), indent + 1);
            sb.append(i + 1 < l.size() ? ",\n" : "\n");
        }
        pad(sb, indent);
        sb.append(']');
    }

    private static void pad(StringBuilder sb, int indent) {
        sb.append("  ".repeat(indent));
    }

    static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}

package org.jacap.bench.report;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small streaming JSON writer (the bench module has no JSON library at run time): objects,
 * arrays, strings and finite numbers, two-space indentation. Non-finite doubles become null.
 */
public final class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    /** Per open container: true once it holds an element (a comma is due before the next). */
    private final Deque<boolean[]> open = new ArrayDeque<>();

    private boolean afterName;

    public JsonWriter beginObject() {
        return begin('{');
    }

    public JsonWriter endObject() {
        return end('}');
    }

    public JsonWriter beginArray() {
        return begin('[');
    }

    public JsonWriter endArray() {
        return end(']');
    }

    public JsonWriter name(String name) {
        separate();
        quote(name);
        out.append(": ");
        afterName = true;
        return this;
    }

    public JsonWriter value(String s) {
        separate();
        if (s == null) {
            out.append("null");
        } else {
            quote(s);
        }
        return this;
    }

    public JsonWriter value(long v) {
        separate();
        out.append(v);
        return this;
    }

    public JsonWriter value(double v) {
        separate();
        out.append(Double.isFinite(v) ? Double.toString(v) : "null");
        return this;
    }

    public JsonWriter value(boolean v) {
        separate();
        out.append(v);
        return this;
    }

    public JsonWriter field(String name, String v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, long v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, double v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, boolean v) {
        return name(name).value(v);
    }

    public JsonWriter array(String name, long[] values) {
        name(name).beginArray();
        for (long v : values) {
            value(v);
        }
        return endArray();
    }

    public JsonWriter array(String name, double[] values) {
        name(name).beginArray();
        for (double v : values) {
            value(v);
        }
        return endArray();
    }

    @Override
    public String toString() {
        if (!open.isEmpty()) {
            throw new IllegalStateException("unclosed JSON container");
        }
        return out.toString();
    }

    private JsonWriter begin(char c) {
        separate();
        out.append(c);
        open.push(new boolean[1]);
        return this;
    }

    private JsonWriter end(char c) {
        boolean[] state = open.pop();
        if (state[0]) {
            newline();
        }
        out.append(c);
        return this;
    }

    private void separate() {
        if (afterName) {
            afterName = false;
            return;
        }
        boolean[] state = open.peek();
        if (state != null) {
            if (state[0]) {
                out.append(',');
            }
            state[0] = true;
            newline();
        }
    }

    private void newline() {
        out.append('\n').append("  ".repeat(open.size()));
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        out.append('"');
    }
}

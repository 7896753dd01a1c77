package org.jacap.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;
import org.jacap.gguf.GgufValue;
import org.jacap.gguf.GgufValueType;

/** The {@code --json} report of {@code jacap inspect}: the same facts as the text report, values in full. */
final class InspectJson {
    private InspectJson() {}

    static String render(GgufFile file, String shownPath, boolean metadata, boolean tensors) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("file", shownPath);
        root.put("version", file.version());
        root.put("size", file.fileSize());
        root.put("alignment", file.alignment());
        root.put("data_start", file.dataStart());
        root.put("metadata_count", file.metadata().keys().size());
        root.put("tensor_count", file.tensors().size());
        root.put("warnings", file.warnings());
        Map<String, Object> summary = new LinkedHashMap<>();
        for (ModelSummary.Line line : ModelSummary.of(file).lines()) {
            summary.put(line.key(), line.json());
        }
        root.put("summary", summary);
        if (metadata) {
            Map<String, Object> md = new LinkedHashMap<>();
            file.metadata().asMap().forEach((k, v) -> md.put(k, typed(v)));
            root.put("metadata", md);
        }
        if (tensors) {
            List<Object> list = new ArrayList<>();
            int i = 0;
            for (GgufTensorInfo t : file.tensors()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("index", i++);
                m.put("name", t.name());
                m.put("type", t.type().name());
                List<Object> shape = new ArrayList<>();
                for (long d : t.dims()) {
                    shape.add(d);
                }
                m.put("shape", shape);
                m.put("elements", t.elementCount());
                m.put("bytes", t.byteSize());
                m.put("offset", t.offset());
                m.put("file_offset", file.dataStart() + t.offset());
                list.add(m);
            }
            root.put("tensors", list);
        }
        return Json.write(root);
    }

    /** A metadata entry: its type (and element type and length for arrays) and its value. */
    static Map<String, Object> typed(GgufValue v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", v.type().name());
        if (v instanceof GgufValue.ArrayValue a) {
            m.put("element_type", a.elementType().name());
            m.put("length", a.length());
        }
        m.put("value", value(v));
        return m;
    }

    /** The value as plain JSON: numbers, strings, booleans and (nested) lists. */
    static Object value(GgufValue v) {
        return switch (v) {
            case GgufValue.IntValue i -> integer(i.type(), i.value());
            case GgufValue.FloatValue f -> floating(f.type(), f.value());
            case GgufValue.BoolValue b -> b.value();
            case GgufValue.StringValue s -> s.value();
            case GgufValue.ArrayValue a -> {
                List<Object> list = new ArrayList<>(a.length());
                for (int i = 0; i < a.length(); i++) {
                    list.add(
                            switch (a.elementType()) {
                                case STRING -> a.strings()[i];
                                case ARRAY -> value(a.arrays()[i]);
                                case BOOL -> a.bools()[i];
                                case FLOAT32, FLOAT64 -> floating(a.elementType(), a.doubles()[i]);
                                default -> integer(a.elementType(), a.longs()[i]);
                            });
                }
                yield list;
            }
        };
    }

    private static Object integer(GgufValueType type, long v) {
        return type == GgufValueType.UINT64 && v < 0 ? new Json.NumberText(Long.toUnsignedString(v)) : (Object) v;
    }

    private static Object floating(GgufValueType type, double v) {
        return type == GgufValueType.FLOAT32 ? (Object) (float) v : (Object) v;
    }
}

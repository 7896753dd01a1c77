package org.jacap.cli;

import static org.jacap.cli.ModelSummary.grouped;

import java.util.Map;
import org.jacap.gguf.GgufFile;
import org.jacap.gguf.GgufTensorInfo;
import org.jacap.gguf.GgufValue;

/** The text report of {@code jacap inspect}: file facts, model summary, metadata, tensor table. */
final class InspectReport {
    private InspectReport() {}

    static String render(GgufFile file, String shownPath, boolean metadata, boolean tensors) {
        StringBuilder sb = new StringBuilder();
        TextTable facts = new TextTable("", "");
        facts.add("file", ValueText.escaped(shownPath));
        facts.add("format", "GGUF v" + file.version() + ", little-endian");
        facts.add("size", grouped(file.fileSize()) + " bytes (" + ModelSummary.humanBytes(file.fileSize()) + ")");
        facts.add("alignment", Integer.toString(file.alignment()));
        if (!file.tensors().isEmpty()) {
            facts.add("data", "starts at byte " + grouped(file.dataStart()));
        }
        facts.add(
                "contents",
                file.metadata().keys().size() + " metadata keys, "
                        + file.tensors().size() + " tensors");
        for (String w : file.warnings()) {
            facts.add("warning", w);
        }
        facts.appendTo(sb, "");

        ModelSummary summary = ModelSummary.of(file);
        if (!summary.lines().isEmpty()) {
            sb.append("\nmodel\n");
            TextTable model = new TextTable("", "");
            for (ModelSummary.Line line : summary.lines()) {
                model.add(line.label(), line.text());
            }
            model.appendTo(sb, "  ");
        }

        if (metadata) {
            sb.append("\nmetadata (").append(file.metadata().keys().size()).append(" keys)\n");
            TextTable t = new TextTable(">#", "key", "type", "value");
            int i = 0;
            for (Map.Entry<String, GgufValue> e : file.metadata().asMap().entrySet()) {
                t.add(
                        Integer.toString(i++),
                        ValueText.escaped(e.getKey()),
                        ValueText.typeName(e.getValue()),
                        ValueText.abbreviated(e.getValue()));
            }
            t.appendTo(sb, "  ");
        }

        if (tensors && !file.tensors().isEmpty()) {
            sb.append("\ntensors (").append(file.tensors().size()).append(")\n");
            TextTable t = new TextTable(">#", "name", "type", "shape", ">bytes", ">file offset");
            int i = 0;
            for (GgufTensorInfo info : file.tensors()) {
                t.add(
                        Integer.toString(i++),
                        ValueText.escaped(info.name()),
                        info.type().name(),
                        info.shape(),
                        grouped(info.byteSize()),
                        grouped(file.dataStart() + info.offset()));
            }
            t.appendTo(sb, "  ");
        }
        return sb.toString();
    }
}

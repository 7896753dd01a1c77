package org.jacap.cli;

import java.util.ArrayList;
import java.util.List;

/** Aligned text columns: left-aligned text, right-aligned numbers, two spaces between columns. */
final class TextTable {
    private final String[] header;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /**
     * {@code columns} are the header titles; a title starting with '>' marks a right-aligned column.
     * When every title is empty, no header line is printed.
     */
    TextTable(String... columns) {
        header = new String[columns.length];
        rightAligned = new boolean[columns.length];
        for (int i = 0; i < columns.length; i++) {
            rightAligned[i] = columns[i].startsWith(">");
            header[i] = rightAligned[i] ? columns[i].substring(1) : columns[i];
        }
    }

    void add(String... cells) {
        rows.add(cells);
    }

    /** Each line starts with {@code indent}; the last column is not padded. */
    void appendTo(StringBuilder sb, String indent) {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
        }
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        if (String.join("", header).length() > 0) {
            line(sb, indent, header, width);
        }
        for (String[] r : rows) {
            line(sb, indent, r, width);
        }
    }

    private void line(StringBuilder sb, String indent, String[] cells, int[] width) {
        StringBuilder line = new StringBuilder(indent);
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                line.append("  ");
            }
            int pad = width[i] - cells[i].length();
            if (rightAligned[i]) {
                line.append(" ".repeat(pad)).append(cells[i]);
            } else {
                line.append(cells[i]);
                if (i < cells.length - 1) {
                    line.append(" ".repeat(pad));
                }
            }
        }
        sb.append(line.toString().stripTrailing()).append('\n');
    }
}

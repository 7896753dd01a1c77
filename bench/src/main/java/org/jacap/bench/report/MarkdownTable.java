package org.jacap.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A Markdown table with fixed minimum column widths, padded like llama-bench's printer:
 * left-aligned columns end their rule with '-', right-aligned ones with ':'. (The CLI's plain aligned
 * columns, without rules or pipes, are its {@code TextTable}.)
 */
public final class MarkdownTable {

    /** One column: header, minimum width, and whether cells are right-aligned (numbers). */
    public record Column(String header, int width, boolean rightAligned) {
        public static Column left(String header, int width) {
            return new Column(header, width, false);
        }

        public static Column right(String header, int width) {
            return new Column(header, width, true);
        }
    }

    private final List<Column> columns;
    private final List<List<String>> rows = new ArrayList<>();

    public MarkdownTable(List<Column> columns) {
        this.columns = List.copyOf(columns);
    }

    public MarkdownTable row(List<String> cells) {
        if (cells.size() != columns.size()) {
            throw new IllegalArgumentException(
                    "row has " + cells.size() + " cells, table has " + columns.size() + " columns");
        }
        rows.add(List.copyOf(cells));
        return this;
    }

    public MarkdownTable row(String... cells) {
        return row(List.of(cells));
    }

    public String render() {
        int n = columns.size();
        int[] widths = new int[n];
        for (int c = 0; c < n; c++) {
            widths[c] = Math.max(
                    columns.get(c).width(),
                    columns.get(c)
                            .header()
                            .codePointCount(0, columns.get(c).header().length()));
            for (List<String> r : rows) {
                widths[c] =
                        Math.max(widths[c], r.get(c).codePointCount(0, r.get(c).length()));
            }
        }
        StringBuilder sb = new StringBuilder();
        line(sb, columns.stream().map(Column::header).toList(), widths);
        sb.append('|');
        for (int c = 0; c < n; c++) {
            sb.append(' ')
                    .append("-".repeat(widths[c] - 1))
                    .append(columns.get(c).rightAligned() ? ':' : '-')
                    .append(" |");
        }
        sb.append('\n');
        for (List<String> r : rows) {
            line(sb, r, widths);
        }
        return sb.toString();
    }

    private void line(StringBuilder sb, List<String> cells, int[] widths) {
        sb.append('|');
        for (int c = 0; c < cells.size(); c++) {
            String cell = cells.get(c);
            // Pad by code points so "±" counts as one column, not two bytes.
            String pad = " ".repeat(widths[c] - cell.codePointCount(0, cell.length()));
            sb.append(' ')
                    .append(columns.get(c).rightAligned() ? pad + cell : cell + pad)
                    .append(" |");
        }
        sb.append('\n');
    }
}

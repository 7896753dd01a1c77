package org.jacap.bench.report;

import java.util.List;

/** RFC 4180 CSV lines: fields with a comma, quote or line break are quoted, quotes doubled. */
public final class Csv {
    private Csv() {}

    public static String line(List<String> fields) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(field(fields.get(i)));
        }
        return sb.append('\n').toString();
    }

    public static String field(String value) {
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
            return value;
        }
        return '"' + value.replace("\"", "\"\"") + '"';
    }
}

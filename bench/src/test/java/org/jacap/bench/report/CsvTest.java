package org.jacap.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CsvTest {

    @Test
    void parseReadsWhatLineWrites() {
        List<String> tricky = List.of("plain", "a,b", "say \"hi\"", "two\nlines", "");
        String text = Csv.line(tricky) + Csv.line(List.of("x", "y")) + "\r\nlast,row";
        assertThat(Csv.parse(text)).containsExactly(tricky, List.of("x", "y"), List.of("last", "row"));
        assertThat(Csv.parse("")).isEmpty();
        assertThatThrownBy(() -> Csv.parse("a,\"open\n")).hasMessageContaining("not closed");
    }
}

package org.jacap.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportFormattingTest {

    @Test
    void sampleStatsUsesBesselCorrectedStddev() {
        SampleStats s = SampleStats.of(2, 4, 4, 4, 5, 5, 7, 9);
        assertThat(s.mean()).isEqualTo(5.0);
        assertThat(s.stddev()).isCloseTo(Math.sqrt(32.0 / 7.0), org.assertj.core.data.Offset.offset(1e-12));
        assertThat(s.count()).isEqualTo(8);
        assertThat(s.format(2)).isEqualTo("5.00 ± 2.14");
    }

    @Test
    void oneSampleHasZeroStddevAndNoSamplesIsAnError() {
        assertThat(SampleStats.of(66.7)).isEqualTo(new SampleStats(66.7, 0, 1));
        assertThatThrownBy(SampleStats::of).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void stddevKeepsItsDigitsWhenTinyNextToTheMean() {
        SampleStats s = SampleStats.of(1e9 + 1, 1e9 + 2, 1e9 + 3);
        assertThat(s.stddev()).isEqualTo(1.0);
    }

    @Test
    void unitsFollowLlamaBench() {
        assertThat(Units.bytes(763_000_000L)).isEqualTo("727.65 MiB");
        assertThat(Units.bytes(1_300_000_000L)).isEqualTo("1.21 GiB");
        assertThat(Units.params(1_235_814_400L)).isEqualTo("1.24 B");
        assertThat(Units.params(4_200_000L)).isEqualTo("4.20 M");
        assertThat(Units.sizeLabel(1_235_814_400L)).isEqualTo("1.2B");
        assertThat(Units.sizeLabel(8_030_000_000L)).isEqualTo("8B");
        assertThat(Units.sizeLabel(292_000L)).isEqualTo("292K");
        assertThat(Units.sizeLabel(15_200_000L)).isEqualTo("15M");
    }

    @Test
    void textTablePadsByCodePointsAndMarksAlignment() {
        String t = new MarkdownTable(
                        List.of(MarkdownTable.Column.left("name", 6), MarkdownTable.Column.right("t/s", 8)))
                .row("pp512", "1.00 ± 0.10")
                .row("tg128", "2.5")
                .render();
        assertThat(t).isEqualTo("""
                | name   |         t/s |
                | ------ | ----------: |
                | pp512  | 1.00 ± 0.10 |
                | tg128  |         2.5 |
                """);
    }

    @Test
    void textTableRejectsRowsOfTheWrongWidth() {
        MarkdownTable t = new MarkdownTable(List.of(MarkdownTable.Column.left("a", 1)));
        assertThatThrownBy(() -> t.row("x", "y")).hasMessageContaining("2 cells");
    }

    @Test
    void csvQuotesOnlyWhatNeedsQuoting() {
        assertThat(Csv.line(List.of("plain", "a,b", "say \"hi\"", "")))
                .isEqualTo("plain,\"a,b\",\"say \"\"hi\"\"\",\n");
    }

    @Test
    void jsonWriterProducesParsableEscapedJson() throws Exception {
        String json = new JsonWriter()
                .beginObject()
                .field("name", "a \"quoted\"\nline\u0001")
                .field("n", 3L)
                .field("x", 0.5)
                .field("nan", Double.NaN)
                .field("ok", true)
                .array("ns", new long[] {1, 2})
                .name("empty")
                .beginArray()
                .endArray()
                .endObject()
                .toString();
        JsonNode node = new ObjectMapper().readTree(json);
        assertThat(node.get("name").asText()).isEqualTo("a \"quoted\"\nline\u0001");
        assertThat(node.get("n").asLong()).isEqualTo(3);
        assertThat(node.get("x").asDouble()).isEqualTo(0.5);
        assertThat(node.get("nan").isNull()).isTrue();
        assertThat(node.get("ok").asBoolean()).isTrue();
        assertThat(node.get("ns").size()).isEqualTo(2);
        assertThat(node.get("empty").size()).isZero();
    }

    @Test
    void jsonWriterRefusesUnclosedContainers() {
        JsonWriter w = new JsonWriter().beginArray();
        assertThatThrownBy(w::toString).isInstanceOf(IllegalStateException.class);
    }
}

package org.jacap.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class SvgLineChartTest {

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void chartIsWellFormedSvgWithOneGroupPerSeriesAndALegend() throws Exception {
        double[] x = {0.5, 0.75, 0.875, 0.9};
        String svg = new SvgLineChart("KL <full‖compressed> & more", "compression ratio", "mean KL (nats/token)")
                .add(new SvgLineChart.Series(
                        "oracle",
                        x,
                        new double[] {0.01, 0.02, 0.05, 0.07},
                        new double[] {0.005, 0.01, 0.04, 0.06},
                        new double[] {0.02, 0.03, 0.06, 0.08}))
                .add(new SvgLineChart.Series("snap\"kv\"", x, new double[] {0.02, 0.05, 0.09, Double.NaN}))
                .render();
        Document doc = parse(svg);
        Element root = doc.getDocumentElement();
        assertThat(root.getLocalName()).isEqualTo("svg");
        assertThat(root.getNamespaceURI()).isEqualTo("http://www.w3.org/2000/svg");

        List<String> names = new ArrayList<>();
        NodeList groups = doc.getElementsByTagName("g");
        int legendTexts = 0;
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (g.getAttribute("class").equals("series")) {
                names.add(g.getAttribute("data-name"));
            }
            if (g.getAttribute("class").equals("legend")) {
                legendTexts = g.getElementsByTagName("text").getLength();
            }
        }
        assertThat(names).containsExactly("oracle", "snap\"kv\"");
        assertThat(legendTexts).isEqualTo(2);
        // The NaN point is left out of the second line and gets no marker; error bars only on the first.
        Element second = seriesGroup(doc, 1);
        assertThat(second.getElementsByTagName("circle").getLength()).isEqualTo(3);
        assertThat(((Element) second.getElementsByTagName("polyline").item(0))
                        .getAttribute("points")
                        .split(" "))
                .hasSize(3);
        assertThat(seriesGroup(doc, 0).getElementsByTagName("line").getLength()).isEqualTo(4);
        assertThat(svg).contains(">compression ratio<").contains(">mean KL (nats/token)<");
    }

    private static Element seriesGroup(Document doc, int index) {
        NodeList groups = doc.getElementsByTagName("g");
        int k = 0;
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (g.getAttribute("class").equals("series") && k++ == index) {
                return g;
            }
        }
        throw new AssertionError("no series " + index);
    }

    @Test
    void ticksAreRoundAndCoverTheRange() {
        assertThat(SvgLineChart.ticks(0, 0.073)).containsExactly(0, 0.02, 0.04, 0.06, 0.08);
        assertThat(SvgLineChart.ticks(0.5, 0.9)).containsExactly(0.5, 0.6, 0.7, 0.8, 0.9);
        double[] t = SvgLineChart.ticks(0, 12);
        assertThat(t[0]).isEqualTo(0);
        assertThat(t[t.length - 1]).isGreaterThanOrEqualTo(12);
    }

    @Test
    void emptyChartStillRenders() throws Exception {
        Document doc = parse(new SvgLineChart("t", "x", "y").render());
        assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
    }
}

package org.jacap.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A self-contained SVG line chart (no scripts, no external fonts): one polyline with markers and
 * optional error bars per series, labelled axes with round tick values, and a legend. Each series
 * is a {@code <g class="series" data-name="…">} so tools and tests can find it.
 */
public final class SvgLineChart {

    /** One line: y over x, with optional interval bounds (null when absent). */
    public record Series(String name, double[] x, double[] y, double[] low, double[] high) {
        public Series {
            if (x.length != y.length
                    || (low != null && low.length != x.length)
                    || (high != null && high.length != x.length)) {
                throw new IllegalArgumentException("series '" + name + "' has arrays of different lengths");
            }
        }

        public Series(String name, double[] x, double[] y) {
            this(name, x, y, null, null);
        }
    }

    // Okabe–Ito colours (distinguishable with colour-vision deficiencies), then a few more.
    private static final String[] COLORS = {
        "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442", "#8C564B", "#7F7F7F",
        "#BCBD22", "#17BECF"
    };
    private static final String[] DASHES = {"", "6,3", "2,3", "8,3,2,3"};
    private static final int WIDTH = 760;
    private static final int HEIGHT = 460;
    private static final int LEFT = 78;
    private static final int RIGHT = 200;
    private static final int TOP = 46;
    private static final int BOTTOM = 62;

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();

    public SvgLineChart(String title, String xLabel, String yLabel) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    public SvgLineChart add(Series s) {
        series.add(s);
        return this;
    }

    public String render() {
        double xMin = Double.POSITIVE_INFINITY;
        double xMax = Double.NEGATIVE_INFINITY;
        double yMin = 0;
        double yMax = Double.NEGATIVE_INFINITY;
        for (Series s : series) {
            for (int i = 0; i < s.x().length; i++) {
                if (!Double.isFinite(s.y()[i])) {
                    continue;
                }
                xMin = Math.min(xMin, s.x()[i]);
                xMax = Math.max(xMax, s.x()[i]);
                yMin = Math.min(yMin, s.low() != null ? s.low()[i] : s.y()[i]);
                yMax = Math.max(yMax, s.high() != null ? s.high()[i] : s.y()[i]);
            }
        }
        if (xMin > xMax) {
            xMin = 0;
            xMax = 1;
        }
        if (!(yMax > yMin)) {
            yMax = yMin + 1;
        }
        // A little room on both sides keeps the first and last points off the axes.
        double pad = (xMax - xMin) * 0.04;
        double[] xTicks = ticks(xMin - pad, xMax + pad);
        double[] yTicks = ticks(yMin, yMax);
        Axis xAxis =
                new Axis(Math.min(xMin, xTicks[0]), Math.max(xMax, xTicks[xTicks.length - 1]), LEFT, WIDTH - RIGHT);
        Axis yAxis = new Axis(yTicks[0], yTicks[yTicks.length - 1], HEIGHT - BOTTOM, TOP);

        StringBuilder sb = new StringBuilder();
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(HEIGHT)
                .append("\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(HEIGHT)
                .append("\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n");
        sb.append("  <title>").append(escape(title)).append("</title>\n");
        sb.append("  <rect width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>\n");
        sb.append("  <text x=\"")
                .append(WIDTH / 2)
                .append("\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">")
                .append(escape(title))
                .append("</text>\n");
        axes(sb, xAxis, yAxis, xTicks, yTicks);
        for (int k = 0; k < series.size(); k++) {
            seriesGroup(sb, series.get(k), k, xAxis, yAxis);
        }
        legend(sb);
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** Linear map from data to pixels. */
    private record Axis(double min, double max, double from, double to) {
        double px(double v) {
            return from + (v - min) / (max - min) * (to - from);
        }
    }

    private void axes(StringBuilder sb, Axis x, Axis y, double[] xTicks, double[] yTicks) {
        sb.append("  <g class=\"axes\" stroke=\"#000000\" stroke-width=\"1\">\n");
        line(sb, LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, HEIGHT - BOTTOM, "");
        line(sb, LEFT, TOP, LEFT, HEIGHT - BOTTOM, "");
        sb.append("  </g>\n");
        sb.append("  <g class=\"x-ticks\" text-anchor=\"middle\">\n");
        for (double t : xTicks) {
            String px = num(x.px(t));
            line(sb, px, HEIGHT - BOTTOM, px, HEIGHT - BOTTOM + 5, " stroke=\"#000000\"");
            text(sb, px, HEIGHT - BOTTOM + 19, label(t, xTicks));
        }
        sb.append("  </g>\n");
        sb.append("  <g class=\"y-ticks\" text-anchor=\"end\">\n");
        for (double t : yTicks) {
            String py = num(y.px(t));
            line(sb, LEFT, py, WIDTH - RIGHT, py, " stroke=\"#E0E0E0\"");
            text(sb, LEFT - 8, num(y.px(t) + 4), label(t, yTicks));
        }
        sb.append("  </g>\n");
        sb.append("  <text class=\"x-label\" x=\"")
                .append((LEFT + WIDTH - RIGHT) / 2)
                .append("\" y=\"")
                .append(HEIGHT - 18)
                .append("\" text-anchor=\"middle\">")
                .append(escape(xLabel))
                .append("</text>\n");
        int cy = (TOP + HEIGHT - BOTTOM) / 2;
        sb.append("  <text class=\"y-label\" x=\"20\" y=\"")
                .append(cy)
                .append("\" text-anchor=\"middle\" transform=\"rotate(-90 20 ")
                .append(cy)
                .append(")\">")
                .append(escape(yLabel))
                .append("</text>\n");
    }

    private void seriesGroup(StringBuilder sb, Series s, int k, Axis x, Axis y) {
        String color = COLORS[k % COLORS.length];
        String dash = DASHES[(k / COLORS.length) % DASHES.length];
        sb.append("  <g class=\"series\" data-name=\"")
                .append(escape(s.name()))
                .append("\" stroke=\"")
                .append(color)
                .append("\" fill=\"")
                .append(color)
                .append("\">\n");
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < s.x().length; i++) {
            if (Double.isFinite(s.y()[i])) {
                points.append(points.isEmpty() ? "" : " ")
                        .append(num(x.px(s.x()[i])))
                        .append(',')
                        .append(num(y.px(s.y()[i])));
            }
        }
        sb.append("    <polyline fill=\"none\" stroke-width=\"2\"")
                .append(dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"")
                .append(" points=\"")
                .append(points)
                .append("\"/>\n");
        for (int i = 0; i < s.x().length; i++) {
            if (!Double.isFinite(s.y()[i])) {
                continue;
            }
            String px = num(x.px(s.x()[i]));
            if (s.low() != null && s.high() != null) {
                sb.append("    <line class=\"error-bar\" x1=\"")
                        .append(px)
                        .append("\" y1=\"")
                        .append(num(y.px(s.low()[i])))
                        .append("\" x2=\"")
                        .append(px)
                        .append("\" y2=\"")
                        .append(num(y.px(s.high()[i])))
                        .append("\" stroke-width=\"1\"/>\n");
            }
            sb.append("    <circle cx=\"")
                    .append(px)
                    .append("\" cy=\"")
                    .append(num(y.px(s.y()[i])))
                    .append("\" r=\"3.5\">")
                    .append("<title>")
                    .append(escape(s.name()))
                    .append(": ")
                    .append(Units.fixed(s.x()[i], 3))
                    .append(" → ")
                    .append(Units.fixed(s.y()[i], 5))
                    .append("</title></circle>\n");
        }
        sb.append("  </g>\n");
    }

    private void legend(StringBuilder sb) {
        int x0 = WIDTH - RIGHT + 18;
        sb.append("  <g class=\"legend\">\n");
        for (int k = 0; k < series.size(); k++) {
            String color = COLORS[k % COLORS.length];
            String dash = DASHES[(k / COLORS.length) % DASHES.length];
            int y0 = TOP + 8 + k * 20;
            line(
                    sb,
                    x0,
                    y0,
                    x0 + 24,
                    y0,
                    " stroke=\"" + color + "\" stroke-width=\"2\""
                            + (dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\""));
            sb.append("    <circle cx=\"")
                    .append(x0 + 12)
                    .append("\" cy=\"")
                    .append(y0)
                    .append("\" r=\"3.5\" fill=\"")
                    .append(color)
                    .append("\"/>\n");
            text(sb, x0 + 32, y0 + 4, escape(series.get(k).name()));
        }
        sb.append("  </g>\n");
    }

    /** One {@code <line>} of a group: its ends, then {@code attributes} (each with its leading space). */
    private static void line(StringBuilder sb, Object x1, Object y1, Object x2, Object y2, String attributes) {
        sb.append("    <line x1=\"")
                .append(x1)
                .append("\" y1=\"")
                .append(y1)
                .append("\" x2=\"")
                .append(x2)
                .append("\" y2=\"")
                .append(y2)
                .append('"')
                .append(attributes)
                .append("/>\n");
    }

    /** One {@code <text>} of a group at (x, y); {@code content} is already escaped. */
    private static void text(StringBuilder sb, Object x, Object y, String content) {
        sb.append("    <text x=\"")
                .append(x)
                .append("\" y=\"")
                .append(y)
                .append("\">")
                .append(content)
                .append("</text>\n");
    }

    /** About five round tick values (1, 2, 2.5 or 5 × 10^k apart) covering [min, max]. */
    static double[] ticks(double min, double max) {
        if (max <= min) {
            max = min + 1;
        }
        double raw = (max - min) / 5;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double step = magnitude;
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            step = m * magnitude;
            if (step >= raw) {
                break;
            }
        }
        double first = Math.floor(min / step + 1e-9) * step;
        double last = Math.ceil(max / step - 1e-9) * step;
        int n = (int) Math.round((last - first) / step) + 1;
        double[] t = new double[n];
        for (int i = 0; i < n; i++) {
            // Rounded to 12 decimals, so 0.5 + 4 × 0.1 is the double nearest 0.9, not 0.9000000000000001.
            t[i] = Math.rint((first + i * step) * 1e12) / 1e12;
        }
        return t;
    }

    private static String label(double v, double[] ticks) {
        double step = ticks.length > 1 ? ticks[1] - ticks[0] : 1;
        int decimals = Math.max(0, (int) Math.ceil(-Math.log10(step) + 1e-9));
        double scaled = step * Math.pow(10, decimals);
        if (Math.abs(scaled - Math.rint(scaled)) > 1e-6) {
            decimals++; // 2.5-steps need one more digit
        }
        return Units.fixed(Math.abs(v) < step * 1e-9 ? 0 : v, Math.min(decimals, 8));
    }

    private static String num(double v) {
        return Units.fixed(v, 1);
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

package dev.loanruntime.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws the experiments' PNG charts with JFreeChart, headless (no display needed). Runs on the caller's thread and
 * blocks while it writes the file.
 */
final class Charts {
    static final Color HEAVY = new Color(0xD6, 0x45, 0x41);
    static final Color LIGHT = new Color(0x2E, 0x6F, 0xB7);
    private static final Color[] SERIES = {LIGHT, HEAVY, new Color(0x3A, 0x9A, 0x4B), new Color(0x8E, 0x5B, 0xB5),
            new Color(0xE0, 0x8E, 0x1B), new Color(0x1B, 0xA3, 0xA8), new Color(0x6B, 0x6B, 0x6B),
            new Color(0xC2, 0x4F, 0x9A), new Color(0x8C, 0x6D, 0x31), new Color(0x00, 0x3F, 0x88)};
    private static final Font AXIS = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    /** The size of every chart but the timeline (whose height grows with its lanes), in pixels. */
    static final int WIDTH = 900;
    static final int HEIGHT = 560;

    static {
        // Before the first AWT class loads: charts are drawn on servers and in CI, without a display.
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /** One horizontal bar per request, from its start to its end; one row of bars per case, one time axis. */
    record Bar(String kind, double startS, double endS) {
    }

    record Lane(String label, List<Bar> bars) {
    }

    static void timeline(Path out, String title, List<Lane> lanes) {
        NumberAxis time = new NumberAxis("time since the round started (s)");
        time.setLabelFont(AXIS);
        time.setAutoRangeIncludesZero(true);
        CombinedRangeXYPlot plot = new CombinedRangeXYPlot(time);
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        plot.setGap(6);
        for (Lane lane : lanes) {
            XYIntervalSeries heavy = new XYIntervalSeries("heavy");
            XYIntervalSeries light = new XYIntervalSeries("light");
            for (int i = 0; i < lane.bars().size(); i++) {
                Bar b = lane.bars().get(i);
                double row = lane.bars().size() - 1 - i; // first request on top
                ("heavy".equals(b.kind()) ? heavy : light).add(row, row - 0.4, row + 0.4, b.startS(), b.startS(),
                        b.endS());
            }
            XYIntervalSeriesCollection data = new XYIntervalSeriesCollection();
            data.addSeries(heavy);
            data.addSeries(light);
            XYBarRenderer bars = new XYBarRenderer();
            bars.setUseYInterval(true);
            bars.setShadowVisible(false);
            bars.setBarPainter(new StandardXYBarPainter());
            bars.setSeriesPaint(0, HEAVY);
            bars.setSeriesPaint(1, LIGHT);
            NumberAxis requests = new NumberAxis(lane.label());
            requests.setTickLabelsVisible(false);
            requests.setTickMarksVisible(false);
            requests.setRange(-0.7, lane.bars().size() - 0.3);
            requests.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            requests.setLabelAngle(Math.PI / 2); // horizontal, readable case names left of each lane
            XYPlot sub = new XYPlot(data, requests, null, bars);
            sub.setDomainGridlinesVisible(false);
            sub.setOrientation(PlotOrientation.HORIZONTAL); // rows of requests, time along the bottom
            plot.add(sub, 1);
        }
        LegendItemCollection legend = new LegendItemCollection();
        legend.add(new LegendItem("heavy request", HEAVY));
        legend.add(new LegendItem("light request", LIGHT));
        plot.setFixedLegendItems(legend);
        save(out, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true), 1200, 140 + 80 * lanes.size());
    }

    /** A numeric setting against a measured value, with one marked x (e.g. the core count). */
    static void scaling(Path out, String title, String xLabel, String yLabel, String seriesLabel, double[][] xy,
                        Double markX, String markLabel) {
        XYSeries series = new XYSeries(seriesLabel);
        for (double[] p : xy) {
            series.add(p[0], p[1]);
        }
        NumberAxis x = new NumberAxis(xLabel);
        x.setLabelFont(AXIS);
        NumberAxis y = new NumberAxis(yLabel);
        y.setLabelFont(AXIS);
        y.setAutoRangeIncludesZero(true);
        XYLineAndShapeRenderer lines = new XYLineAndShapeRenderer(true, true);
        lines.setSeriesPaint(0, LIGHT);
        lines.setSeriesStroke(0, new BasicStroke(2.5f));
        XYPlot plot = new XYPlot(new XYSeriesCollection(series), x, y, lines);
        if (markX != null) {
            plot.addDomainMarker(mark(markX, markLabel, RectangleAnchor.TOP_RIGHT, TextAnchor.TOP_LEFT));
        }
        save(out, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true), WIDTH, HEIGHT);
    }

    /** One line per series, with a marker at each point; the y axis logarithmic when {@code log}. */
    static void lines(Path out, String title, String xLabel, String yLabel, LineData data, boolean log) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        for (LineData.Series s : data.series()) {
            XYSeries series = new XYSeries(s.label(), false);
            s.points().forEach(p -> series.add(p[0], p[1]));
            dataset.addSeries(series);
        }
        NumberAxis x = new NumberAxis(xLabel);
        x.setLabelFont(AXIS);
        x.setAutoRangeIncludesZero(false);
        ValueAxis y = log ? new LogarithmicAxis(yLabel) : new NumberAxis(yLabel);
        y.setLabelFont(AXIS);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.series().size(); i++) {
            renderer.setSeriesPaint(i, SERIES[i % SERIES.length]);
            renderer.setSeriesStroke(i, new BasicStroke(2f));
        }
        save(out, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, new XYPlot(dataset, x, y, renderer), true),
                WIDTH, HEIGHT);
    }

    /**
     * Bars by category, one colour per series, side by side or stacked, each labelled with its value; an optional
     * horizontal line at {@code markY} (e.g. the count every worker would have if the load were even).
     */
    static void bars(Path out, String title, String xLabel, String yLabel, BarData data, boolean stacked, boolean log,
                     Double markY, String markLabel) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (BarData.Series s : data.series()) {
            for (int i = 0; i < data.categories().size(); i++) {
                dataset.addValue(s.values().get(i), s.label(), category(data, i));
            }
        }
        BarRenderer renderer = stacked ? new StackedBarRenderer() : new BarRenderer();
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        // three figures at most past the point: 10,603.2 and 4.36, not 10,603.201
        renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator(
                StandardCategoryItemLabelGenerator.DEFAULT_LABEL_FORMAT_STRING, new DecimalFormat("#,##0.##")));
        renderer.setDefaultItemLabelsVisible(true);
        for (int i = 0; i < data.series().size(); i++) {
            renderer.setSeriesPaint(i, SERIES[i % SERIES.length]);
        }
        CategoryAxis x = new CategoryAxis(xLabel);
        x.setLabelFont(AXIS);
        if (data.categories().size() > 6) {
            // many long names side by side would be cut short
            x.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        }
        ValueAxis y;
        if (log) {
            double smallest = data.series().stream().flatMap(s -> s.values().stream()).filter(v -> v != null)
                    .mapToDouble(v -> v).min().orElse(1);
            LogarithmicAxis logAxis = new LogarithmicAxis(yLabel);
            // bars rise from below the smallest value, not from 0, which a logarithmic axis does not have
            renderer.setBase(smallest / 2);
            renderer.setIncludeBaseInRange(true);
            logAxis.setUpperMargin(0.25);
            y = logAxis;
        } else {
            NumberAxis linear = new NumberAxis(yLabel);
            linear.setUpperMargin(0.12); // room for the value labels above the tallest bar
            y = linear;
        }
        y.setLabelFont(AXIS);
        CategoryPlot plot = new CategoryPlot(dataset, x, y, renderer);
        if (markY != null) {
            plot.addRangeMarker(mark(markY, markLabel, RectangleAnchor.TOP_LEFT, TextAnchor.BOTTOM_LEFT));
            // the automatic range covers the bars only: a mark above them would be drawn off the chart
            y.setUpperBound(Math.max(y.getUpperBound(), markY * 1.1));
        }
        save(out, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true), WIDTH, HEIGHT);
    }

    /** Category {@code i}'s name, saying so when a series has no value there: a missing bar is not a bar of 0. */
    private static String category(BarData data, int i) {
        long missing = data.series().stream().filter(s -> s.values().get(i) == null).count();
        String name = data.categories().get(i);
        return missing == 0 ? name : missing == data.series().size() ? name + " (not measured)"
                : name + " (" + missing + " not measured)";
    }

    /** A dashed line at {@code at} in the heavy colour, its label placed by the anchors. */
    private static ValueMarker mark(double at, String label, RectangleAnchor anchor, TextAnchor textAnchor) {
        ValueMarker marker = new ValueMarker(at, HEAVY, new BasicStroke(2f, BasicStroke.CAP_BUTT,
                BasicStroke.JOIN_MITER, 1f, new float[] {6f, 4f}, 0f));
        marker.setLabel(label);
        marker.setLabelFont(AXIS);
        marker.setLabelPaint(HEAVY);
        marker.setLabelAnchor(anchor);
        marker.setLabelTextAnchor(textAnchor);
        marker.setLabelBackgroundColor(Color.WHITE);
        return marker;
    }

    /** Cumulative latency distributions: for each run, the percentage of requests answered within x ms. */
    record Curve(String label, double[][] percentileMs) {
    }

    static void cdf(Path out, String title, List<Curve> curves, boolean logScale) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Curve c : curves) {
            String key = data.getSeriesIndex(c.label()) < 0 ? c.label()
                    : c.label() + " (" + (data.getSeriesCount() + 1) + ")";
            XYSeries s = new XYSeries(key, false, true);
            for (double[] p : c.percentileMs()) {
                s.add(Math.max(p[1], logScale ? 0.001 : 0), p[0]);
            }
            data.addSeries(s);
        }
        ValueAxis x = logScale ? new LogarithmicAxis("latency (ms, log scale)") : new NumberAxis("latency (ms)");
        x.setLabelFont(AXIS);
        NumberAxis y = new NumberAxis("requests answered within (%)");
        y.setLabelFont(AXIS);
        y.setRange(0, 100.5);
        XYLineAndShapeRenderer lines = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < curves.size(); i++) {
            lines.setSeriesPaint(i, SERIES[i % SERIES.length]);
            lines.setSeriesStroke(i, new BasicStroke(2.5f));
        }
        save(out, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, new XYPlot(data, x, y, lines), true), WIDTH,
                HEIGHT);
    }

    static void save(Path out, JFreeChart chart, int width, int height) {
        chart.setBackgroundPaint(Color.WHITE);
        try {
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            ChartUtils.saveChartAsPNG(out.toFile(), chart, width, height);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write chart " + out, e);
        }
    }
}

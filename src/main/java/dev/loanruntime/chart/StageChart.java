package dev.loanruntime.chart;

import java.awt.Color;
import java.awt.Font;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.annotations.XYTitleAnnotation;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;

import dev.loanruntime.stages.Stage;

/**
 * {@code chart stages}' drawing: one panel per execution model, one horizontal bar per request made of its stages,
 * every panel on one time axis and every stage in one colour. Runs on the caller's thread; blocks while it writes
 * the file.
 */
final class StageChart {
    /** Each stage's colour, the same in every panel; waits (carrier, queue, crypto-queue, resume) are warm. */
    static final Map<String, Color> COLOURS = Arrays.stream(Stage.values())
            .collect(Collectors.toMap(Stage::label, s -> new Color(s.rgb())));
    static final int WIDTH = 1200;
    /** Height of the title, time axis and legend, and of each panel's title and each bar, in pixels. */
    static final int FRAME = 150;
    static final int PANEL = 40;
    static final int ROW = 30;

    private StageChart() {
    }

    /** The PNG's height for these panels: it grows with the requests, so bars keep their thickness. */
    static int height(List<StageBars> panels) {
        return FRAME + panels.stream().mapToInt(p -> PANEL + ROW * p.rows().size()).sum();
    }

    static void draw(Path out, String title, List<StageBars> panels) {
        NumberAxis time = new NumberAxis("ms on the server's clock since the round's first request reached it");
        time.setAutoRangeIncludesZero(true);
        CombinedRangeXYPlot plot = new CombinedRangeXYPlot(time);
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        plot.setGap(8);
        for (StageBars panel : panels) {
            plot.add(panel(panel), PANEL / 10 + panel.rows().size() * ROW / 10);
        }
        LegendItemCollection legend = new LegendItemCollection();
        for (String stage : StageBars.ORDER) {
            if (panels.stream().anyMatch(p -> p.rows().stream()
                    .anyMatch(r -> r.segments().stream().anyMatch(s -> s.stage().equals(stage))))) {
                legend.add(new LegendItem(stage, COLOURS.get(stage)));
            }
        }
        plot.setFixedLegendItems(legend);
        Charts.save(out, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true), WIDTH, height(panels));
    }

    private static XYPlot panel(StageBars panel) {
        // One series per stage in ORDER, empty ones included, so that a stage has the same series index, and so the
        // same colour, in every panel.
        XYIntervalSeriesCollection data = new XYIntervalSeriesCollection();
        XYBarRenderer bars = new XYBarRenderer();
        for (String stage : StageBars.ORDER) {
            bars.setSeriesPaint(data.getSeriesCount(), COLOURS.get(stage));
            data.addSeries(new XYIntervalSeries(stage));
        }
        int n = panel.rows().size();
        String[] names = new String[n];
        for (int i = 0; i < n; i++) {
            StageBars.Row row = panel.rows().get(i);
            int y = n - 1 - i; // the first request on top
            names[y] = row.segments().isEmpty() ? row.name() + " (failed)" : row.name();
            for (StageBars.Segment s : row.segments()) {
                data.getSeries(StageBars.ORDER.indexOf(s.stage())).add(y, y - 0.35, y + 0.35, s.fromMs(), s.fromMs(),
                        s.toMs());
            }
        }
        bars.setUseYInterval(true);
        bars.setShadowVisible(false);
        bars.setDrawBarOutline(false);
        bars.setBarPainter(new StandardXYBarPainter());
        SymbolAxis requests = new SymbolAxis(null, names);
        requests.setGridBandsVisible(false);
        requests.setTickMarksVisible(false);
        requests.setRange(-0.6, n + 0.4); // the top row of the panel holds its title
        XYPlot sub = new XYPlot(data, requests, null, bars);
        sub.setOrientation(PlotOrientation.HORIZONTAL); // rows of requests, time along the bottom
        sub.setDomainGridlinesVisible(false);
        TextTitle name = new TextTitle(panel.label() + " (round " + panel.round() + ")",
                new Font(Font.SANS_SERIF, Font.BOLD, 13));
        name.setPadding(new RectangleInsets(2, 6, 2, 6));
        // Relative coordinates are (domain, range): in a horizontal plot domain 1.0 is the top, range 0.0 the left.
        sub.addAnnotation(new XYTitleAnnotation(1.0, 0.0, name, RectangleAnchor.TOP_LEFT));
        return sub;
    }
}

package dev.loanruntime.chart;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The data of a line chart, as a script writes it: one line per series, each a list of (x, y) points, e.g.
 * {@code {"series": [{"label": "none", "points": [[1, 12.5], [2, 300], [5, 4100]]}]}}. Immutable; {@link #of} runs on
 * the caller's thread and does not block.
 *
 * @param series one colour each, in the legend
 */
record LineData(List<Series> series) {

    /** One line: its legend label and its points in the order drawn. */
    record Series(String label, List<double[]> points) {
    }

    LineData {
        series = List.copyOf(series);
    }

    /** The chart data in {@code json}; an error names {@code source} and what is wrong. */
    static LineData of(JsonNode json, Path source, boolean log) {
        JsonNode series = json.path("series");
        if (!series.isArray() || series.isEmpty()) {
            throw new IllegalArgumentException(source + ": expected \"series\": a non-empty array of "
                    + "{\"label\": ..., \"points\": [[x, y], ...]}, but was " + series);
        }
        List<Series> all = new ArrayList<>();
        for (JsonNode s : series) {
            String label = s.path("label").asText("series " + (all.size() + 1));
            List<double[]> points = new ArrayList<>();
            for (JsonNode p : s.path("points")) {
                if (!p.isArray() || p.size() != 2 || !p.get(0).isNumber() || !p.get(1).isNumber()) {
                    throw new IllegalArgumentException(source + ": series '" + label + "' has a point that is not "
                            + "[x, y] in numbers: " + p);
                }
                if (log && !(p.get(1).asDouble() > 0)) {
                    throw new IllegalArgumentException(source + ": series '" + label + "' has the value "
                            + p.get(1).asDouble() + ", which a logarithmic axis (--log) cannot show: every y must be "
                            + "above 0");
                }
                points.add(new double[] {p.get(0).asDouble(), p.get(1).asDouble()});
            }
            all.add(new Series(label, points));
        }
        return new LineData(all);
    }
}

package dev.loanruntime.chart;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The data of a bar chart, as a script writes it: one value per category in each series, e.g.
 * {@code {"categories": ["local", "sqlite"], "series": [{"label": "worker 1", "values": [97, null]}]}} (null: not
 * measured).
 * Counts that shell scripts gather (connections per worker, answers per store) become a chart without a JSON
 * format of their own. Immutable; {@link #of} runs on the caller's thread and does not block.
 *
 * @param categories the bars' names along the category axis, in order
 * @param series     one colour each, in the legend
 */
record BarData(List<String> categories, List<Series> series) {

    /**
     * One colour of bars: its legend label and its value in each category (same order as the categories); null
     * where the figure was not measured, which draws no bar (never a bar of 0).
     */
    record Series(String label, List<Double> values) {
    }

    BarData {
        categories = List.copyOf(categories);
        series = List.copyOf(series);
    }

    /** The chart data in {@code json}; an error names {@code source} and the value that is wrong. */
    static BarData of(JsonNode json, Path source) {
        JsonNode categories = json.path("categories");
        if (!categories.isArray() || categories.isEmpty()) {
            throw new IllegalArgumentException(source + ": expected \"categories\": a non-empty array of names, "
                    + "but was " + categories);
        }
        List<String> names = new ArrayList<>();
        categories.forEach(c -> names.add(c.asText()));
        JsonNode series = json.path("series");
        if (!series.isArray() || series.isEmpty()) {
            throw new IllegalArgumentException(source + ": expected \"series\": a non-empty array of "
                    + "{\"label\": ..., \"values\": [...]}, but was " + series);
        }
        List<Series> all = new ArrayList<>();
        for (JsonNode s : series) {
            JsonNode values = s.path("values");
            if (!values.isArray() || values.size() != names.size()) {
                throw new IllegalArgumentException(source + ": series '" + s.path("label").asText() + "' needs "
                        + names.size() + " values, one per category, but has " + values);
            }
            List<Double> numbers = new ArrayList<>();
            for (JsonNode v : values) {
                if (v.isNull()) {
                    numbers.add(null);
                    continue;
                }
                if (!v.isNumber()) {
                    throw new IllegalArgumentException(source + ": series '" + s.path("label").asText()
                            + "' has a value that is not a number: " + v);
                }
                numbers.add(v.asDouble());
            }
            all.add(new Series(s.path("label").asText("series " + (all.size() + 1)), numbers));
        }
        return new BarData(names, all);
    }

    /** These data, when {@code log} is false or every value is above 0 (a logarithmic axis has no 0); else an error. */
    // null (not measured) is no value: it draws no bar on either axis
    BarData checkedForLog(boolean log, Path source) {
        for (Series s : series) {
            for (Double v : s.values()) {
                if (log && v != null && !(v > 0)) {
                    throw new IllegalArgumentException(source + ": series '" + s.label() + "' has the value " + v
                            + ", which a logarithmic axis (--log) cannot show: every value must be above 0");
                }
            }
        }
        return this;
    }
}

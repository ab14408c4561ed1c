package dev.loanruntime.chart;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;

import dev.loanruntime.stages.Stage;

/**
 * One panel of {@code chart stages}, read from a {@code probe --stages --json} file (one execution model): for each
 * request of one round a bar of its stages, in the order a request lives them, placed on the round's server
 * timeline. Origins are on the server's monotonic clock, so the requests of a round line up whatever the client saw;
 * 0 is the first point any of them reached the server. Immutable; {@link #of} runs on the caller's thread and does
 * not block.
 *
 * @param label the panel's title: the probe's {@code --label}, else the file's name
 * @param round the round drawn (probe's numbering, from 1)
 * @param rows  one per request, in the probe's order (heavy first)
 */
record StageBars(String label, int round, List<Row> rows) {
    /** The stages a bar is made of, in the order a request lives them; their sum is the server's total. */
    static final List<String> ORDER = Stage.PARTS.stream().filter(s -> s != Stage.WRITE).map(Stage::label).toList();

    /** One stage of one request, from and to in ms on the round's timeline. */
    record Segment(String stage, double fromMs, double toMs) {
    }

    /** One request: its name as probe printed it ("heavy", "light-1"), and its stages; none when it failed. */
    record Row(String name, String kind, List<Segment> segments) {
        Row {
            segments = List.copyOf(segments);
        }
    }

    StageBars {
        rows = List.copyOf(rows);
    }

    /**
     * The last round of {@code report} as bars; an error names {@code source} and what is wrong in it.
     *
     * @throws IllegalArgumentException when the file has no round, no request with stages (probe ran without
     *                                  {@code --stages}), or a request with stages but no origin or a stage that is
     *                                  not a number
     */
    static StageBars of(JsonNode report, Path source, String label) {
        JsonNode rounds = report.path("rounds");
        if (!rounds.isArray() || rounds.isEmpty()) {
            throw new IllegalArgumentException(source + ": expected \"rounds\": a non-empty array (the JSON of probe "
                    + "--stages --json), but was " + rounds);
        }
        JsonNode last = rounds.get(rounds.size() - 1);
        int round = last.path("round").asInt(rounds.size());
        List<String> names = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        List<Double> starts = new ArrayList<>();   // null for a request without stages
        List<Map<String, Double>> stages = new ArrayList<>();
        for (JsonNode r : last.path("requests")) {
            String name = r.path("name").asText("?");
            names.add(name);
            kinds.add(r.path("kind").asText("light"));
            Map<String, Double> ms = stages(r.path("stages"), source, round, name);
            stages.add(ms);
            if (ms == null) {
                starts.add(null);
                continue;
            }
            JsonNode origin = r.path("originMs");
            if (!origin.isNumber()) {
                throw new IllegalArgumentException(source + ": request '" + name + "' of round " + round
                        + " has stages but \"originMs\" is " + origin + ": written by an older probe; run it again");
            }
            // A later request on a kept-alive connection starts at its request line; its idle gap comes before.
            starts.add(origin.asDouble() - ms.getOrDefault(Stage.IDLE.label(), 0.0));
        }
        if (starts.stream().allMatch(Objects::isNull)) {
            throw new IllegalArgumentException(source + ": no request of round " + round + " has \"stages\": "
                    + "run probe with --stages");
        }
        double zero = starts.stream().filter(Objects::nonNull).mapToDouble(Double::doubleValue).min().orElse(0);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            List<Segment> segments = new ArrayList<>();
            if (starts.get(i) != null) {
                double at = starts.get(i) - zero;
                for (String stage : ORDER) {
                    Double ms = stages.get(i).get(stage);
                    if (ms != null) {
                        segments.add(new Segment(stage, at, at + ms));
                        at += ms;
                    }
                }
            }
            rows.add(new Row(names.get(i), kinds.get(i), segments));
        }
        return new StageBars(label, round, rows);
    }

    /** The request's stages in ms, or null when it has none (probe without --stages, or a failed request). */
    private static Map<String, Double> stages(JsonNode json, Path source, int round, String name) {
        if (!json.isObject()) {
            return null;
        }
        Map<String, Double> ms = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : json.properties()) {
            if (!e.getValue().isNumber()) {
                throw new IllegalArgumentException(source + ": stage '" + e.getKey() + "' of request '" + name
                        + "' in round " + round + " is not a number: " + e.getValue());
            }
            ms.put(e.getKey(), e.getValue().asDouble());
        }
        return ms;
    }
}

package dev.loanruntime.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One experiment's record, {@code docs/results/NAME/record.json}, as experiments/lib/record.sh writes it: the run
 * (commit, date, mode, machine, tools, load), its figures, tables and verdicts. Read-only.
 *
 * @param name the experiment, e.g. {@code 01-blocking-vs-pooled} (the record's directory)
 * @param dir  the record's directory
 * @param json the whole record
 */
record RunRecord(String name, Path dir, JsonNode json) {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A table as the experiment printed it: every cell a string. */
    record Table(String name, String title, List<String> columns, List<List<String>> rows) {
    }

    /**
     * A claim, its goal, its result ({@code true}, {@code false} or why it was not measured), its basis, in how many
     * of its rounds it held (null for a one-off observation), and the outcome record.sh gave it (null in records made
     * before outcomes were written).
     */
    record Verdict(String claim, String goal, String result, String basis, Integer heldRounds, Integer rounds,
                   String recordedOutcome) {
        /**
         * Held, failed or inconclusive. A verdict on rounds holds when it held in every round and fails when it held
         * in none: with three rounds the 95 % bootstrap interval of their median is their range, so a goal met by
         * only some rounds lies inside the interval; a claim about every round fails on one round that did not
         * hold. A one-off observation is held or failed as observed; anything
         * not measured is inconclusive.
         */
        Interval.Outcome outcome() {
            if (recordedOutcome != null && !recordedOutcome.isEmpty()) {
                return Interval.Outcome.valueOf(recordedOutcome.toUpperCase(java.util.Locale.ROOT));
            }
            if (!result.equals("true") && !result.equals("false")) {
                return Interval.Outcome.INCONCLUSIVE;
            }
            if (rounds != null && heldRounds != null && rounds >= 2) {
                // A claim about every round is refuted by one round that did not hold.
                boolean everyRound = goal.startsWith("every round");
                return heldRounds.equals(rounds) ? Interval.Outcome.HELD
                        : heldRounds == 0 || everyRound ? Interval.Outcome.FAILED : Interval.Outcome.INCONCLUSIVE;
            }
            return result.equals("true") ? Interval.Outcome.HELD : Interval.Outcome.FAILED;
        }
    }

    /** A figure: its rounds (null where a round measured nothing), their median, min and max (null when none). */
    record Figure(String key, String label, String unit, List<Double> rounds, Double median, Double min, Double max) {
    }

    /** Reads {@code dir/record.json}. */
    static RunRecord read(Path dir) {
        try {
            return new RunRecord(dir.getFileName().toString(), dir,
                    MAPPER.readTree(dir.resolve("record.json").toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the record in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Every record under {@code results} (each directory holding a record.json), sorted by name. */
    static List<RunRecord> readAll(Path results) {
        if (!Files.isDirectory(results)) {
            return List.of();
        }
        try (var dirs = Files.list(results)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("record.json"))).sorted().map(RunRecord::read)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String commit() {
        return json.path("commit").asText();
    }

    String shortCommit() {
        return commit().length() > 7 ? commit().substring(0, 7) : commit();
    }

    boolean dirty() {
        return json.path("dirty").asBoolean(true);
    }

    String question() {
        return json.path("question").asText();
    }

    String mode() {
        return json.path("mode").asText("full");
    }

    /** The start of the run, {@code 2026-12-02 14:14 UTC}. */
    String date() {
        String iso = json.path("date").asText();
        return iso.length() >= 16 ? iso.substring(0, 10) + " " + iso.substring(11, 16) + " UTC" : iso;
    }

    /** The machine in a few words: {@code 2 CPUs (x86_64, virtual machine), Temurin-25.0.3+9}. */
    String machine() {
        JsonNode m = json.path("machine");
        String java = json.path("tools").path("java").asText("?")
                .replaceFirst("^OpenJDK Runtime Environment ", "").replaceFirst(" \\(build.*$", "");
        return m.path("cpus").asInt() + " CPUs (" + m.path("arch").asText()
                + (m.path("virtualMachine").asBoolean() ? ", VM" : "") + "), " + java;
    }

    int idleBeforePercent() {
        return json.path("cpuIdleBeforePercent").asInt(-1);
    }

    /**
     * What shared the machine, in a few words: the 1-minute load average before the run and after it
     * ({@code load average 0.1 before, 1.9 after}), and the highest median share of the load client's CPU that was
     * busy ({@code the client's CPU 0.97 busy}) when the run measured it (figures named {@code client-busy}); empty
     * when the record holds neither.
     */
    String sharing() {
        List<String> parts = new ArrayList<>();
        JsonNode before = json.path("loadBefore").path(0);
        JsonNode after = json.path("loadAfter").path(0);
        if (before.isNumber() && after.isNumber()) {
            parts.add(String.format(Locale.ROOT, "load average %.1f before, %.1f after", before.asDouble(),
                    after.asDouble()));
        }
        figures().stream()
                .filter(f -> f.median() != null && f.key().matches("(.*\\.)?client-busy(\\..*)?"))
                .mapToDouble(Figure::median).max()
                .ifPresent(busy -> parts.add(String.format(Locale.ROOT, "the client's CPU %.2f busy", busy)));
        return String.join(", ", parts);
    }

    List<String> tableNames() {
        List<String> names = new ArrayList<>();
        json.path("tables").forEach(t -> names.add(t.path("name").asText()));
        return names;
    }

    Optional<Table> table(String tableName) {
        for (JsonNode t : json.path("tables")) {
            if (t.path("name").asText().equals(tableName)) {
                return Optional.of(new Table(tableName, t.path("title").asText(), strings(t.path("columns")),
                        listOfRows(t.path("rows"))));
            }
        }
        return Optional.empty();
    }

    List<Verdict> verdicts() {
        List<Verdict> verdicts = new ArrayList<>();
        for (JsonNode v : json.path("verdicts")) {
            verdicts.add(new Verdict(v.path("claim").asText(), v.path("goal").asText(), v.path("result").asText(),
                    v.path("basis").asText(), integer(v.path("heldRounds")), integer(v.path("rounds")),
                    v.path("outcome").asText(null)));
        }
        return verdicts;
    }

    List<Figure> figures() {
        List<Figure> figures = new ArrayList<>();
        for (JsonNode f : json.path("figures")) {
            List<Double> rounds = new ArrayList<>();
            f.path("rounds").forEach(r -> rounds.add(r.isNumber() ? r.asDouble() : null));
            figures.add(new Figure(f.path("key").asText(), f.path("label").asText(), f.path("unit").asText(), rounds,
                    number(f.path("median")), number(f.path("min")), number(f.path("max"))));
        }
        return figures;
    }

    List<String> charts() {
        return strings(json.path("charts"));
    }

    private static Integer integer(JsonNode n) {
        return n.isNumber() ? n.asInt() : null;
    }

    private static Double number(JsonNode n) {
        return n.isNumber() ? n.asDouble() : null;
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(v -> values.add(v.asText()));
        return values;
    }

    private static List<List<String>> listOfRows(JsonNode rows) {
        List<List<String>> values = new ArrayList<>();
        rows.forEach(r -> values.add(strings(r)));
        return values;
    }
}

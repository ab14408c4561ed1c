package dev.loanruntime.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Markdown from records: the tables, verdicts, figures, charts and the index that the docs' generated blocks hold.
 * Every block ends with the run it comes from (commit, date, machine) and links to its record, relative to the doc.
 */
final class Render {
    private static final Pattern NUMERIC = Pattern.compile("-|-?[0-9][0-9.,]*(%|x| ?[a-zA-Z/]{1,6})?");

    private final Path docDir;

    /** @param docDir the directory of the doc the Markdown goes into, relative to the project root ("" for it) */
    Render(Path docDir) {
        this.docDir = docDir;
    }

    /** A link from the doc to {@code path} (relative to the project root). */
    String link(String path) {
        return docDir.relativize(Path.of(path)).toString().replace('\\', '/');
    }

    /**
     * The line naming the run: commit, date, "a short run" (a full one goes unsaid), machine, how idle it was, what
     * shared the machine (load before and after, the load client's busiest CPU share), and the record's folder.
     */
    String run(RunRecord r) {
        String dir = "docs/results/" + r.name() + "/";
        int idle = r.idleBeforePercent();
        String sharing = r.sharing();
        return "Commit " + r.shortCommit() + (r.dirty() ? " with uncommitted changes" : "") + ", "
                + r.date() + ", " + ("short".equals(r.mode()) ? "a short run, " : "")
                + r.machine() + (idle >= 0 && idle < 90 ? " (CPUs only " + idle + "% idle at the start)" : "")
                + (sharing.isEmpty() ? "" : "; " + sharing)
                + ": [record](" + link(dir) + "/).";     // its folder: record.json, output.txt, the charts
    }

    String table(RunRecord r, RunRecord.Table t) {
        List<String> lines = markdownTable(t.columns(), t.rows());
        lines.add("");
        lines.add(sentence(t.title()) + " " + run(r));
        return String.join("\n", lines);
    }

    String verdicts(RunRecord r) {
        List<List<String>> rows = new ArrayList<>();
        for (RunRecord.Verdict v : r.verdicts()) {
            rows.add(List.of(v.claim(), "`" + v.goal() + "`", outcome(v)));
        }
        List<String> lines = markdownTable(List.of("claim", "goal", "outcome"), rows);
        lines.add("");
        lines.add("Verdicts of " + r.name() + ": " + counts(r.verdicts()) + ". " + run(r));
        return String.join("\n", lines);
    }

    /**
     * The verdicts whose claim contains {@code words}, one sentence each: the outcome, what it stands on, the claim
     * and its goal. For prose that states a verdict: the sentence comes from the record, so it cannot say more.
     */
    String verdictSentences(RunRecord r, String words) {
        List<String> lines = new ArrayList<>();
        for (RunRecord.Verdict v : r.verdicts()) {
            if (v.claim().contains(words)) {
                String claim = Character.toUpperCase(v.claim().charAt(0)) + v.claim().substring(1);
                lines.add("- " + claim + " (`" + v.goal() + "`): " + outcome(v) + ".");
            }
        }
        if (lines.isEmpty()) {
            throw new IllegalArgumentException(r.name() + " has no verdict whose claim contains '" + words + "'");
        }
        lines.add("");
        lines.add(run(r));
        return String.join("\n", lines);
    }

    /** {@code **held** (median of 3 rounds; held in 3 of 3)}; an unmeasured verdict says why it was not. */
    static String outcome(RunRecord.Verdict v) {
        Interval.Outcome o = v.outcome();
        String why = v.result().equals("true") || v.result().equals("false") ? "" : ": " + v.result();
        return (o == Interval.Outcome.INCONCLUSIVE ? o.toString() : "**" + o + "**") + why + " (" + v.basis() + ")";
    }

    /** {@code 3 held, 1 failed, 0 inconclusive of 4}. */
    static String counts(List<RunRecord.Verdict> verdicts) {
        long[] n = new long[Interval.Outcome.values().length];
        verdicts.forEach(v -> n[v.outcome().ordinal()]++);
        return n[0] + " held, " + n[1] + " failed, " + n[2] + " inconclusive of " + verdicts.size();
    }

    /** The figures whose key matches the glob: label, median, min, max, and every round. */
    String figures(RunRecord r, String glob) {
        Pattern keys = Pattern.compile(glob.replace(".", "\\.").replace("*", ".*"));
        List<List<String>> rows = new ArrayList<>();
        for (RunRecord.Figure f : r.figures()) {
            if (keys.matcher(f.key()).matches()) {
                String unit = f.unit().isEmpty() ? "" : " " + f.unit();
                rows.add(List.of(f.label().isEmpty() ? f.key() : f.label(), number(f.median()) + unit,
                        number(f.min()), number(f.max()),
                        String.join(", ", f.rounds().stream().map(Render::number).toList())));
            }
        }
        if (rows.isEmpty()) {
            if ("short".equals(r.mode())) { // a short run skips some parts; a full record that lacks one is a bug
                return "_Not measured by this record (a short run): `experiments/record.sh " + r.name()
                        + "` measures it._\n\n" + run(r);
            }
            throw new IllegalArgumentException("no figure of " + r.name() + " matches '" + glob + "'");
        }
        List<String> lines = markdownTable(List.of("figure", "median", "min", "max", "rounds"), rows);
        lines.add("");
        lines.add(run(r));
        return String.join("\n", lines);
    }

    String chart(RunRecord r, String file, String alt) {
        return "![" + alt + "](" + link("docs/results/" + r.name() + "/" + file) + ")\n\n" + run(r);
    }

    /** One row per record: the experiment's script, its question, its verdicts, its run. */
    String index(List<RunRecord> records, Function<RunRecord, String> script) {
        List<List<String>> rows = new ArrayList<>();
        for (RunRecord r : records) {
            rows.add(List.of("[" + r.name() + "](" + link(script.apply(r)) + ")", r.question(), counts(r.verdicts()),
                    "[" + r.date().substring(0, 10) + ", " + r.shortCommit()
                            + ("short".equals(r.mode()) ? ", short" : "") + "](" + link("docs/results/" + r.name())
                            + "/)"));
        }
        return String.join("\n", markdownTable(List.of("experiment", "what it asks", "verdicts", "record"), rows));
    }

    /** A figure as the docs show it: 0 decimals from 100 up, 2 from 1 up, else 3; "-" for none. */
    static String number(Double v) {
        if (v == null) {
            return "-";
        }
        double a = Math.abs(v);
        String format = a >= 100 ? "%.0f" : a >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, format, v);
    }

    private static List<String> markdownTable(List<String> columns, List<List<String>> rows) {
        List<String> lines = new ArrayList<>();
        lines.add(row(columns));
        List<String> rule = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) {
            final int col = c;
            boolean numeric = !rows.isEmpty() && rows.stream()
                    .allMatch(r -> col >= r.size() || NUMERIC.matcher(r.get(col)).matches());
            rule.add(numeric ? "---:" : "---");
        }
        lines.add(row(rule));
        rows.forEach(r -> lines.add(row(r)));
        return lines;
    }

    private static String row(List<String> cells) {
        return "| " + String.join(" | ", cells.stream().map(c -> c.replace("|", "\\|")).toList()) + " |";
    }

    private static String sentence(String title) {
        if (title.isEmpty()) {
            return "";
        }
        String s = Character.toUpperCase(title.charAt(0)) + title.substring(1);
        return s.endsWith(".") ? s : s + ".";
    }
}

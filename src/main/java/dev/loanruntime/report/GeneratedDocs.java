package dev.loanruntime.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The docs' generated blocks, made from the records under {@code docs/results/}. A block is
 *
 * <pre>
 * &lt;!-- generated: SPEC --&gt;
 * (what the generator makes of SPEC; edited by hand, it no longer matches)
 * &lt;!-- /generated --&gt;
 * </pre>
 *
 * where SPEC is {@code index} (every experiment: its question, verdicts and record), or {@code NAME run},
 * {@code NAME table TABLE}, {@code NAME verdicts} (a table of all), {@code NAME verdicts WORDS} (a sentence for each
 * verdict whose claim contains WORDS), {@code NAME figures KEY_GLOB} or {@code NAME chart FILE}, NAME
 * being a record's directory (e.g. {@code 09-request-stages}). The docs are README.md, docs/*.md and
 * experiments/README.md. Besides the blocks, a doc may name a run only by the commit of a record.
 */
final class GeneratedDocs {
    static final Pattern BLOCK = Pattern.compile("<!-- generated: ([^>]*?) -->\\n(.*?)<!-- /generated -->",
            Pattern.DOTALL);
    /** A commit the prose names: "commit 1a2b3c4" (the form every record caption uses too). */
    static final Pattern COMMIT = Pattern.compile("\\bcommit `?([0-9a-f]{7,40})\\b");

    /** The phrases of the docs' prose that hold a number with a unit and are settings, not measurements. */
    static final Path SETTINGS_IN_PROSE = Path.of("docs/settings-in-prose.txt");

    private final Path root;
    private final Map<String, RunRecord> records = new LinkedHashMap<>();

    GeneratedDocs(Path root) {
        this.root = root;
        RunRecord.readAll(root.resolve("docs/results")).forEach(r -> records.put(r.name(), r));
    }

    /** The docs that may hold generated blocks, relative to the root. */
    List<Path> docs() {
        List<Path> docs = new ArrayList<>();
        docs.add(Path.of("README.md"));
        try (Stream<Path> files = Files.list(root.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(f -> docs.add(root.relativize(f)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        docs.add(Path.of("experiments/README.md"));
        return docs.stream().filter(d -> Files.isRegularFile(root.resolve(d))).toList();
    }

    Map<String, RunRecord> records() {
        return records;
    }

    /** The doc's text with every generated block made anew; an unknown SPEC throws, naming the doc and the SPEC. */
    String regenerate(Path doc, String text) {
        Path dir = doc.getParent() == null ? Path.of("") : doc.getParent();
        Render render = new Render(dir);
        Matcher m = BLOCK.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String made;
            try {
                made = block(render, m.group(1).trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(doc + ": <!-- generated: " + m.group(1) + " -->: " + e.getMessage(),
                        e);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(
                    "<!-- generated: " + m.group(1) + " -->\n" + made + "\n<!-- /generated -->"));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * Every record in Markdown, for a reader without the docs at hand: the index (each experiment's held, failed and
     * inconclusive verdicts), then each record's question, tables and verdicts.
     */
    String summary() {
        Render render = new Render(Path.of(""));
        StringBuilder out = new StringBuilder();
        out.append(render.index(List.copyOf(records.values()), r -> "experiments/" + r.name() + ".sh")).append("\n\n");
        for (RunRecord r : records.values()) {
            out.append("### ").append(r.name()).append(": ").append(r.question()).append("\n\n");
            for (String table : r.tableNames()) {
                out.append(render.table(r, r.table(table).orElseThrow())).append("\n\n");
            }
            out.append(render.verdicts(r)).append("\n\n");
        }
        return out.toString();
    }

    /**
     * Every problem with the docs as they stand: blocks that differ from what the records make, foreign commits,
     * figures typed into prose ({@link ProseFigures}).
     */
    List<String> problems() {
        List<String> problems = new ArrayList<>();
        for (RunRecord r : records.values()) {
            if (r.dirty()) {
                problems.add("docs/results/" + r.name() + ": recorded with uncommitted changes to the code");
            }
        }
        Path allowList = root.resolve(SETTINGS_IN_PROSE);
        Map<String, List<String>> settings = Files.isRegularFile(allowList)
                ? ProseFigures.settings(read(SETTINGS_IN_PROSE)) : Map.of();
        List<String> docNames = docs().stream().map(d -> d.toString().replace('\\', '/')).toList();
        settings.keySet().stream().filter(d -> !docNames.contains(d))
                .forEach(d -> problems.add(SETTINGS_IN_PROSE + ": names " + d + ", which is not a doc"));
        for (Path doc : docs()) {
            String text = read(doc);
            String name = doc.toString().replace('\\', '/');
            problems.addAll(ProseFigures.problems(name, text, settings.getOrDefault(name, List.of())));
            try {
                String made = regenerate(doc, text);
                if (!made.equals(text)) {
                    problems.add(doc + ": a generated block differs from the record (" + firstDifference(text, made)
                            + "); run: java -jar target/loan-runtime.jar docs");
                }
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
            Matcher c = COMMIT.matcher(text);
            while (c.find()) {
                String named = c.group(1);
                if (records.values().stream().noneMatch(r -> r.commit().startsWith(named))) {
                    problems.add(doc + ": names commit " + named + ", which made no record in docs/results");
                }
            }
        }
        return problems;
    }

    String read(Path doc) {
        try {
            return Files.readString(root.resolve(doc));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String block(Render render, String spec) {
        String[] words = spec.split("\\s+", 3);
        if (words[0].equals("index") && words.length == 1) {
            return render.index(List.copyOf(records.values()), r -> "experiments/" + r.name() + ".sh");
        }
        RunRecord r = records.get(words[0]);
        if (r == null) {
            throw new IllegalArgumentException("no record docs/results/" + words[0] + "/record.json");
        }
        String kind = words.length > 1 ? words[1] : "";
        String arg = words.length > 2 ? words[2] : "";
        return switch (kind) {
            case "run" -> render.run(r);
            case "verdicts" -> arg.isEmpty() ? render.verdicts(r) : render.verdictSentences(r, arg);
            case "table" -> render.table(r, r.table(arg).orElseThrow(
                    () -> new IllegalArgumentException(r.name() + " has no table '" + arg + "'")));
            case "figures" -> render.figures(r, arg);
            case "chart" -> {
                if (!r.charts().contains(arg)) {
                    throw new IllegalArgumentException(r.name() + " has no chart '" + arg + "'");
                }
                yield render.chart(r, arg, r.question());
            }
            default -> throw new IllegalArgumentException("expected run, table NAME, verdicts [WORDS], figures GLOB"
                    + " or chart FILE after the record's name, got '" + kind + "'");
        };
    }

    private static String firstDifference(String a, String b) {
        String[] x = a.split("\n", -1);
        String[] y = b.split("\n", -1);
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            if (!x[i].equals(y[i])) {
                return "line " + (i + 1) + ": '" + shorten(x[i]) + "', the record makes '" + shorten(y[i]) + "'";
            }
        }
        return "line " + (Math.min(x.length, y.length) + 1) + ": lines added or missing";
    }

    private static String shorten(String s) {
        return s.length() > 100 ? s.substring(0, 100) + "..." : s;
    }
}

package dev.loanruntime.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

import dev.loanruntime.testing.CliRun;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The docs quote the record: every generated block in README.md, docs/*.md and experiments/README.md is what the
 * records in docs/results/ make of it, and a doc names no run (commit) that made no record. The first test holds the
 * repository to that; the others show what it catches, on a small project of their own.
 */
@ResourceLock(Resources.SYSTEM_OUT)   // CliRun swaps System.out and System.err
@ResourceLock(Resources.SYSTEM_ERR)
class GeneratedDocsTest {
    private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

    @TempDir
    Path root;

    @Test
    void theRepositorysDocsMatchItsRecords() {
        GeneratedDocs docs = new GeneratedDocs(Path.of(""));
        assertThat("what `java -jar target/loan-runtime.jar docs --check` reports", docs.problems(), empty());
    }

    @Test
    void everyRepositoryBlockIsCheckedAgainstAChangedDigit() {
        // The repository's own blocks, each with its first digit changed: the check must see every one.
        GeneratedDocs docs = new GeneratedDocs(Path.of(""));
        int blocks = 0;
        for (Path doc : docs.docs()) {
            String text = docs.read(doc);
            Matcher m = GeneratedDocs.BLOCK.matcher(text);
            while (m.find()) {
                int digit = firstDigit(text, m.start(2), m.end(2));
                if (digit < 0) {
                    continue;
                }
                String edited = text.substring(0, digit) + (text.charAt(digit) == '9' ? '8' : '9')
                        + text.substring(digit + 1);
                assertThat(doc + " at " + digit, docs.regenerate(doc, edited), not(edited));
                blocks++;
            }
        }
        assertThat("blocks with a digit in the repository's docs", blocks, not(0));
    }

    @BeforeEach
    void aProjectWithOneRecord() throws IOException {
        Path results = Files.createDirectories(root.resolve("docs/results/01-demo"));
        Files.writeString(results.resolve("record.json"), """
                {"experiment": "01-demo", "question": "Does it wait?", "mode": "full", "commit": "%s",
                 "dirty": false, "date": "2026-12-02T14:14:44Z", "cpuIdleBeforePercent": 97,
                 "machine": {"cpus": 2, "arch": "x86_64", "virtualMachine": true},
                 "tools": {"java": "OpenJDK Runtime Environment Temurin-25.0.3+9 (build 25.0.3+9-LTS)"},
                 "figures": [{"key": "ratio.one", "label": "light/heavy", "unit": "", "rounds": [0.96, 0.95, null],
                              "median": 0.955, "min": 0.95, "max": 0.96}],
                 "tables": [{"name": "models", "title": "medians over 3 rounds", "columns": ["model", "light/heavy"],
                             "rows": [["one carrier", "0.9571"], ["pooled", "0.0099"]]}],
                 "verdicts": [{"claim": "it waits", "goal": "median of ratio.one >= 0.8", "result": "true",
                               "basis": "median of 3 rounds; held in 2 of 3", "heldRounds": 2, "rounds": 3},
                              {"claim": "it answers", "goal": "status 200", "result": "true", "basis": "one run"},
                              {"claim": "it never waits", "goal": "median of ratio.one < 0.1", "result": "false",
                               "basis": "median of 3 rounds; held in 0 of 3", "heldRounds": 0, "rounds": 3},
                              {"claim": "it fails over", "goal": "a failover", "result": "not measured: no replica",
                               "basis": "one run"},
                              {"claim": "it waits less than the pair", "goal": "ratio.pair <= 1", "result": "true",
                               "basis": "9 pairs", "outcome": "held"}],
                 "charts": ["timeline.png"]}
                """.formatted(COMMIT));
        Files.createDirectories(root.resolve("experiments"));
        Files.writeString(root.resolve("README.md"), """
                # demo
                <!-- generated: 01-demo table models -->
                <!-- /generated -->
                Verdicts:
                <!-- generated: 01-demo verdicts -->
                stale
                <!-- /generated -->
                """);
        Files.writeString(root.resolve("docs/demo.md"), """
                <!-- generated: 01-demo figures ratio.* -->
                <!-- /generated -->
                <!-- generated: index -->
                <!-- /generated -->
                """);
        CliRun docs = CliRun.of("docs", "--root", root.toString());
        assertThat("docs --root " + root + ": " + docs.err(), docs.code(), is(0));
    }

    @Test
    void blocksAreRenderedFromTheRecordWithTheirRun() throws IOException {
        String readme = Files.readString(root.resolve("README.md"));
        assertThat(readme, containsString("| model | light/heavy |\n| --- | ---: |\n| one carrier | 0.9571 |"));
        assertThat("a full run goes unsaid", readme, containsString("Medians over 3 rounds. Commit 0123456, "
                + "2026-12-02 14:14 UTC, 2 CPUs (x86_64, VM), Temurin-25.0.3+9: "
                + "[record](docs/results/01-demo/)."));
        assertThat("a median that held in only some rounds settles nothing", readme, containsString(
                "| it waits | `median of ratio.one >= 0.8` | inconclusive (median of 3 rounds; held in 2 of 3) |"));
        assertThat(readme, containsString("| it answers | `status 200` | **held** (one run) |"));
        assertThat(readme, containsString("| it never waits | `median of ratio.one < 0.1` | **failed** (median of 3"
                + " rounds; held in 0 of 3) |"));
        assertThat(readme, containsString("| it fails over | `a failover` | inconclusive: not measured: no replica"
                + " (one run) |"));
        assertThat("an outcome the record gives is taken as given", readme, containsString(
                "| it waits less than the pair | `ratio.pair <= 1` | **held** (9 pairs) |"));
        assertThat(readme, containsString("Verdicts of 01-demo: 2 held, 1 failed, 2 inconclusive of 5."));
        String demo = Files.readString(root.resolve("docs/demo.md"));
        assertThat("links are relative to the doc", demo, containsString("[record](results/01-demo/)."));
        assertThat(demo, containsString("| light/heavy | 0.955 | 0.950 | 0.960 | 0.960, 0.950, - |"));
        assertThat(demo, containsString("| [01-demo](../experiments/01-demo.sh) | Does it wait? | 2 held, 1 failed, 2"
                + " inconclusive of 5 |"));
        assertThat(new GeneratedDocs(root).problems(), empty());
    }

    @Test
    void theSummaryHoldsEveryRecordsTablesAndVerdicts() {
        String summary = new GeneratedDocs(root).summary();
        assertThat(summary, containsString("### 01-demo: Does it wait?\n\n| model | light/heavy |"));
        assertThat(summary, containsString("| it waits | `median of ratio.one >= 0.8` | inconclusive"));
        assertThat("the counts lead", summary,
                containsString("| Does it wait? | 2 held, 1 failed, 2 inconclusive of 5 |"));
    }

    @Test
    void aVerdictStatedInProseIsASentenceFromTheRecord() throws IOException {
        Files.writeString(root.resolve("docs/prose.md"), """
                <!-- generated: 01-demo verdicts never -->
                <!-- /generated -->
                """);
        assertThat(CliRun.of("docs", "--root", root.toString()).code(), is(0));
        assertThat(Files.readString(root.resolve("docs/prose.md")), containsString("- It never waits (`median of"
                + " ratio.one < 0.1`): **failed** (median of 3 rounds; held in 0 of 3).\n\nCommit"
                + " 0123456"));
        var e = assertThrows(IllegalArgumentException.class, () -> new GeneratedDocs(root).regenerate(
                Path.of("docs/x.md"), "<!-- generated: 01-demo verdicts flies -->\n<!-- /generated -->\n"));
        assertThat(e.getMessage(), containsString("01-demo has no verdict whose claim contains 'flies'"));
    }

    @Test
    void aDigitEditedByHandIsFound() throws IOException {
        Path readme = root.resolve("README.md");
        Files.writeString(readme, Files.readString(readme).replace("| 0.9571 |", "| 0.9572 |"));
        List<String> problems = new GeneratedDocs(root).problems();
        assertThat(problems, hasSize(1));
        assertThat(problems.get(0), containsString("README.md: a generated block differs from the record (line 5:"
                + " '| one carrier | 0.9572 |', the record makes '| one carrier | 0.9571 |')"));
    }

    @Test
    void aCommitThatMadeNoRecordIsFound() throws IOException {
        Files.writeString(root.resolve("docs/old.md"), "Measured on commit 89abcde, long ago; and on commit 0123456.\n");
        assertThat(new GeneratedDocs(root).problems(),
                contains("docs/old.md: names commit 89abcde, which made no record in docs/results"));
    }

    @Test
    void aRecordMadeWithUncommittedCodeIsRefused() throws IOException {
        Path record = root.resolve("docs/results/01-demo/record.json");
        Files.writeString(record, Files.readString(record).replace("\"dirty\": false", "\"dirty\": true"));
        assertThat(new GeneratedDocs(root).problems(),
                hasItem("docs/results/01-demo: recorded with uncommitted changes to the code"));
    }

    @Test
    void aBlockNamingWhatTheRecordLacksIsNamed() throws IOException {
        GeneratedDocs docs = new GeneratedDocs(root);
        var e = assertThrows(IllegalArgumentException.class, () -> docs.regenerate(Path.of("docs/x.md"),
                "<!-- generated: 01-demo table nothing -->\n<!-- /generated -->\n"));
        assertThat(e.getMessage(), containsString("docs/x.md: <!-- generated: 01-demo table nothing -->: 01-demo has no"
                + " table 'nothing'"));
        e = assertThrows(IllegalArgumentException.class, () -> docs.regenerate(Path.of("docs/x.md"),
                "<!-- generated: 02-gone run -->\n<!-- /generated -->\n"));
        assertThat(e.getMessage(), containsString("no record docs/results/02-gone/record.json"));
    }

    @Test
    void aFigureAShortRunSkippedIsSaidToBeUnmeasuredAndAFullRecordLackingItFails() throws IOException {
        String block = "<!-- generated: 01-demo figures heap.* -->\n<!-- /generated -->\n";
        assertThrows(IllegalArgumentException.class,
                () -> new GeneratedDocs(root).regenerate(Path.of("docs/x.md"), block));
        Path record = root.resolve("docs/results/01-demo/record.json");
        Files.writeString(record, Files.readString(record).replace("\"mode\": \"full\"", "\"mode\": \"short\""));
        String shortRun = new GeneratedDocs(root).regenerate(Path.of("docs/x.md"), block);
        assertThat(shortRun, containsString(
                "_Not measured by this record (a short run): `experiments/record.sh 01-demo` measures it._"));
        assertThat("a short run says so in its caption", shortRun, containsString("UTC, a short run, 2 CPUs"));
    }

    @Test
    void aCaptionNamesWhatSharedTheMachine() throws IOException {
        Path record = root.resolve("docs/results/01-demo/record.json");
        Files.writeString(record, Files.readString(record)
                .replace("\"cpuIdleBeforePercent\": 97,", "\"cpuIdleBeforePercent\": 97, \"loadBefore\": [0.12, 0.5,"
                        + " 0.4], \"loadAfter\": [1.87, 1.2, 0.9],")
                .replace("\"figures\": [", """
                        "figures": [{"key": "books.client-busy.project", "label": "wrk's CPU", "unit": "",
                                     "rounds": [0.97, 0.97], "median": 0.97, "min": 0.97, "max": 0.97},
                                    {"key": "client-busy.bare", "label": "wrk's CPU", "unit": "", "rounds": [0.5],
                                     "median": 0.5, "min": 0.5, "max": 0.5},
                                    {"key": "heavy-client.a", "label": "ms", "unit": "ms", "rounds": [40],
                                     "median": 40, "min": 40, "max": 40},
                        """));
        String block = new GeneratedDocs(root).regenerate(Path.of("docs/x.md"),
                "<!-- generated: 01-demo table models -->\n<!-- /generated -->\n");
        assertThat("load before and after, and the busiest client CPU", block, containsString(
                "Temurin-25.0.3+9; load average 0.1 before, 1.9 after, the client's CPU 0.97 busy: [record]"));
    }

    @Test
    void aFigureTypedIntoProseIsFoundAndASettingIsNot() throws IOException {
        Files.writeString(root.resolve("docs/prose.md"), """
                A spare answers in 318 ms, 1.58× sooner, using 12 % of a core at 2,878 req/s and 0.62 cores.
                `--kill-timeout` (15 s) is a setting; so is `sleep 10ms` in code, and 503s are statuses.
                ```
                wrk -d10s
                ```
                """);
        Files.writeString(root.resolve("docs/settings-in-prose.txt"), """
                # settings
                docs/prose.md: `--kill-timeout` (15 s)
                docs/prose.md: a phrase long gone (5 s)
                """);
        List<String> problems = new GeneratedDocs(root).problems();
        assertThat(problems, hasItem(containsString("docs/prose.md:1: '318 ms' is a figure typed into prose")));
        for (String figure : List.of("'1.58×'", "'12 %'", "'2,878 req/s'", "'0.62 cores'")) {
            assertThat(problems, hasItem(containsString("docs/prose.md:1: " + figure)));
        }
        assertThat(problems, hasItem("docs/prose.md: the setting 'a phrase long gone (5 s)'"
                + " (docs/settings-in-prose.txt) is not in its prose"));
        assertThat("settings, code and statuses are not figures", problems.stream()
                .filter(p -> p.startsWith("docs/prose.md:2") || p.startsWith("docs/prose.md:4")).toList(), empty());
    }

    @Test
    void aFigureTypedIntoTheRepositorysOwnProseIsFound() {
        GeneratedDocs docs = new GeneratedDocs(Path.of(""));
        String readme = docs.read(Path.of("README.md")) + "\nA warm spare answers in 197 ms.\n";
        String name = "README.md";
        assertThat(ProseFigures.problems(name, readme, List.of()),
                hasItem(containsString("'197 ms' is a figure typed into prose")));
    }

    private static int firstDigit(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (Character.isDigit(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}

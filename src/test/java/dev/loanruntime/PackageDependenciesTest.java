package dev.loanruntime;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

/**
 * The arrows between the project's packages point one way: no package cycle, nothing depends on the composition root
 * ({@code Main}), and {@code serve} never depends on {@code cluster} (the cluster drives workers through the
 * worker protocol of {@code protocol}).
 *
 * <p>The dependencies are read two ways, because each alone misses some:
 * <ul>
 *   <li>the JDK's {@code jdeps} over the compiled main classes (the constant pools: every class the code links,
 *       however the source spelled it), run in-process through {@link ToolProvider}; it does not see class
 *       literals in annotations ({@code subcommands = {...}}) nor compile-time constants, which javac copies
 *       into the class that reads them;</li>
 *   <li>the {@code import} lines and fully qualified {@code dev.loanruntime.x.Type} names of the main sources, with
 *       comments and string literals removed first, which see exactly those.</li>
 * </ul>
 * An arrow found either way counts.
 */
class PackageDependenciesTest {
    private static final String ROOT = "dev.loanruntime";
    private static final Pattern JDEPS_LINE = Pattern.compile("^\\s+(dev\\.loanruntime[\\w.]*)\\s+->\\s+"
            + "(dev\\.loanruntime[\\w.]*)\\s");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.loanruntime(?:\\.[a-z]\\w*)*)\\.(?:[A-Z*])");
    private static final Pattern COMMENTS_AND_STRINGS = Pattern.compile(
            "//[^\\n]*|/\\*.*?\\*/|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])+'", Pattern.DOTALL);

    private static Map<String, Set<String>> arrows;

    @BeforeAll
    static void readArrows() throws Exception {
        arrows = new TreeMap<>();
        Path classes = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        fromClassFiles(classes);
        fromSources(Path.of("src", "main", "java"));
    }

    @Test
    void noPackageCycle() {
        assertThat("package cycles among " + arrows, cycles(arrows), empty());
    }

    @Test
    void nothingDependsOnTheCompositionRoot() {
        List<String> users = arrows.entrySet().stream()
                .filter(e -> e.getValue().contains(ROOT))
                .map(Map.Entry::getKey)
                .toList();
        assertThat("packages that depend on " + ROOT + " (Main)", users, empty());
    }

    @Test
    void serveNeverDependsOnCluster() {
        assertThat(arrows.getOrDefault(ROOT + ".serve", Set.of()), not(hasItem(ROOT + ".cluster")));
    }

    @Test
    void theClientAndTheChartsDependOnTheCommandLinePlumbingNotOnTheServer() {
        for (String tool : List.of(ROOT + ".client", ROOT + ".chart")) {
            assertThat(tool, arrows.getOrDefault(tool, Set.of()), not(hasItem(ROOT + ".serve")));
        }
    }

    @Test
    void cryptoStoreTheWorkerProtocolAndTheSettingsAreLeavesThatImportNothingOfTheProject() {
        // The pool tells the request stages what it does through an interface of its own (CryptoPool.Points); both
        // ends of the worker protocol (serve's worker, cluster's primary) depend on it, never it on them.
        for (String leaf : List.of(ROOT + ".crypto", ROOT + ".store", ROOT + ".protocol", ROOT + ".settings")) {
            assertThat(leaf, arrows.getOrDefault(leaf, Set.of()), empty());
        }
    }

    @Test
    void bothReadersSeeTheArrowsThatOnlyTheyCanSee() {
        // The composition root names its subcommands only in an annotation, so only the source reader sees these;
        // cluster -> serve is in the class files. Without this, a reader that silently found nothing would pass.
        assertThat(arrows.getOrDefault(ROOT, Set.of()), hasItem(ROOT + ".client"));
        assertThat(arrows.getOrDefault(ROOT + ".cluster", Set.of()), hasItem(ROOT + ".serve"));
    }

    /** Every cycle, as its packages in order; empty when the graph is acyclic. Depth-first search with a path. */
    static List<List<String>> cycles(Map<String, Set<String>> graph) {
        List<List<String>> found = new ArrayList<>();
        Set<String> done = new TreeSet<>();
        for (String start : graph.keySet()) {
            walk(graph, start, new ArrayDeque<>(), done, found);
        }
        return found;
    }

    private static void walk(Map<String, Set<String>> graph, String node, Deque<String> path, Set<String> done,
                             List<List<String>> found) {
        if (path.contains(node)) {
            List<String> cycle = new ArrayList<>(path.reversed());
            cycle = new ArrayList<>(cycle.subList(cycle.indexOf(node), cycle.size()));
            cycle.add(node);
            found.add(cycle);
            return;
        }
        if (done.contains(node)) {
            return;
        }
        path.push(node);
        for (String next : graph.getOrDefault(node, Set.of())) {
            walk(graph, next, path, done, found);
        }
        path.pop();
        done.add(node);
    }

    private static void fromClassFiles(Path classes) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps")
                .orElseThrow(() -> new IllegalStateException("jdeps is missing: run the tests on a JDK, not a JRE"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = jdeps.run(new PrintWriter(out), new PrintWriter(err),
                "-verbose:package", "-e", "dev\\.loanruntime(\\..*)?", classes.toString());
        if (status != 0) {
            throw new IllegalStateException("jdeps failed (" + status + "): " + err);
        }
        out.toString().lines().map(JDEPS_LINE::matcher).filter(Matcher::find)
                .forEach(m -> arrow(m.group(1), m.group(2)));
    }

    private static void fromSources(Path sources) throws IOException {
        if (!Files.isDirectory(sources)) {
            throw new IllegalStateException(sources.toAbsolutePath() + " is missing: run from the project directory");
        }
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(PackageDependenciesTest::fromSource);
        }
    }

    private static void fromSource(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher pkg = PACKAGE.matcher(text);
        if (!pkg.find()) {
            return;
        }
        Matcher ref = REFERENCE.matcher(COMMENTS_AND_STRINGS.matcher(text).replaceAll(" "));
        while (ref.find()) {
            arrow(pkg.group(1), ref.group(1));
        }
    }

    private static void arrow(String from, String to) {
        if (!from.equals(to)) {
            arrows.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
        }
    }
}

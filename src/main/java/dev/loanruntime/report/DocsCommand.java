package dev.loanruntime.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code docs}: renders the generated blocks of README.md, docs/*.md and experiments/README.md from the records under
 * docs/results/ (experiments/record.sh writes them and then runs this). {@code --check} changes nothing and exits 1
 * when a block differs from its record or a doc names a commit that made no record. Runs on the caller's thread.
 */
@Command(name = "docs", mixinStandardHelpOptions = true,
         description = "Render the docs' generated tables from the records in docs/results/ (run from the project "
                 + "root).")
public final class DocsCommand implements Callable<Integer> {
    @Option(names = "--check", description = "Change nothing; exit 1 and list each block that differs from its record.")
    boolean check;

    @Option(names = "--print", description = "Change nothing; print every record's tables and verdicts as Markdown "
            + "(e.g. for a CI job's summary).")
    boolean print;

    @Option(names = "--root", defaultValue = ".", paramLabel = "DIR",
            description = "The project root (default: the current directory).")
    Path root;

    @Override
    public Integer call() {
        if (!Files.isDirectory(root.resolve("docs"))) {
            System.err.println("docs: " + root.toAbsolutePath().normalize()
                    + " has no docs/ (run it from the project root)");
            return 2;
        }
        GeneratedDocs docs = new GeneratedDocs(root);
        if (print) {
            System.out.print(docs.summary());
            return 0;
        }
        if (check) {
            List<String> problems = docs.problems();
            problems.forEach(p -> System.out.println("docs: " + p));
            System.out.println("docs: " + (problems.isEmpty() ? "every generated block matches its record ("
                    + docs.records().size() + " records)" : problems.size() + " problem(s)"));
            return problems.isEmpty() ? 0 : 1;
        }
        for (Path doc : docs.docs()) {
            String text = docs.read(doc);
            String made;
            try {
                made = docs.regenerate(doc, text);
            } catch (IllegalArgumentException e) {
                System.out.println("docs: " + e.getMessage());
                return 1;
            }
            if (!made.equals(text)) {
                write(root.resolve(doc), made);
                System.out.println("docs: " + doc + " updated");
            }
        }
        List<String> left = docs.problems();
        left.forEach(p -> System.out.println("docs: " + p));
        return left.isEmpty() ? 0 : 1;
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.loanruntime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;

/**
 * Docs a newcomer reads in one sitting: README.md is the front door (at most 12 KiB), experiments/README.md an index
 * (10 KiB), and each file in docs/ answers one question (8 KiB). A topic that outgrows its file splits in two.
 */
class DocsSizeTest {
    private static final int KIB = 1024;

    @Test
    void eachDocFitsItsBudget() throws IOException {
        List<String> over = new ArrayList<>();
        check(Path.of("README.md"), 12 * KIB, over);
        check(Path.of("experiments", "README.md"), 10 * KIB, over);
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            for (Path doc : docs.filter(f -> f.toString().endsWith(".md")).sorted().toList()) {
                check(doc, 8 * KIB, over);
            }
        }
        assertThat("docs over their budget", over, empty());
    }

    private static void check(Path doc, int budget, List<String> over) throws IOException {
        long size = Files.size(doc);
        if (size > budget) {
            over.add(doc + ": " + size + " bytes, budget " + budget);
        }
    }
}

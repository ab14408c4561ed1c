package dev.loanruntime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;

/** The main sources wrap at 120 columns: a reader sees every line whole. */
class LineLengthTest {
    private static final int COLUMNS = 120;

    @Test
    void everyLineOfTheMainSourcesFitsIn120Columns() throws IOException {
        List<String> longer = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    if (lines.get(i).length() > COLUMNS) {
                        longer.add(file + ":" + (i + 1) + " (" + lines.get(i).length() + " columns)");
                    }
                }
            }
        }
        assertThat("lines past " + COLUMNS + " columns", longer, empty());
    }
}

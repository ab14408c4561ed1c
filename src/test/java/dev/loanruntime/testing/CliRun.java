package dev.loanruntime.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import dev.loanruntime.Main;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * One run of the command line as a user starts it ({@link Main#run}), in this JVM: its exit code and what it
 * printed, picocli's help and usage errors and the commands' own output alike. Swaps {@code System.out} and
 * {@code System.err} while it runs: call it from one test thread at a time.
 */
public record CliRun(int code, String out, String err) {
    public static CliRun of(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
            int code = Main.run(args);
            return new CliRun(code, outBytes.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    /**
     * The one line a usage error prints, after checking that this run was one: status 2 and exactly one line on the
     * error stream.
     */
    public String usageLine() {
        assertThat("status of a usage error; it printed:\n" + err, code, is(2));
        String line = err.strip();
        assertThat("one line expected, got:\n" + err, line.lines().count(), is(1L));
        return line;
    }
}

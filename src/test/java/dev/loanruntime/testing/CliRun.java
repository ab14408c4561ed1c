package dev.loanruntime.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import dev.loanruntime.Main;

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
}

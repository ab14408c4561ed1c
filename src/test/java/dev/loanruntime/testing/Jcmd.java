package dev.loanruntime.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** The JDK's {@code jcmd} against a test's child JVM: a diagnostic command's output, a JFR dump, a thread dump. */
public final class Jcmd {
    private Jcmd() {
    }

    /** {@code jcmd PID COMMAND...}: its output; fails the test when it does not finish within 30 s or exits non-zero. */
    public static String run(long pid, String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid)));
        line.addAll(List.of(command));
        Process p = new ProcessBuilder(line).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError("jcmd " + String.join(" ", command) + " failed: " + out);
            }
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    /** The events of {@code jcmd PID JFR.dump filename=FILE OPTION...}, or null when the JVM runs no recording yet. */
    public static List<RecordedEvent> dump(long pid, Path file, String... options) throws IOException,
            InterruptedException {
        List<String> command = new ArrayList<>(List.of("JFR.dump", "filename=" + file));
        command.addAll(List.of(options));
        run(pid, command.toArray(String[]::new));
        return Files.exists(file) ? RecordingFile.readAllEvents(file) : null;
    }

    /** Every thread of the JVM, virtual threads too, as {@code jcmd PID Thread.dump_to_file} writes them in text. */
    public static String threads(long pid, Path file) throws IOException, InterruptedException {
        run(pid, "Thread.dump_to_file", "-format=text", file.toString());
        return Files.readString(file);
    }
}

package dev.loanruntime.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Confines a running process, every thread it has and every thread it makes later, to CPU 0 ({@code taskset}). */
public final class OneCpu {
    private OneCpu() {
    }

    /** {@code taskset -a -c -p 0 PID}; fails the test when it does not succeed. */
    public static void confine(long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("taskset", "-a", "-c", "-p", "0", Long.toString(pid))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new AssertionError("taskset could not confine " + pid + " to CPU 0: " + out);
        }
    }
}

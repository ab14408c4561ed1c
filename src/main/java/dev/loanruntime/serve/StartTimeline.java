package dev.loanruntime.serve;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The steps of this process's start, each in milliseconds since the process began: on Linux its age from
 * /proc (in clock ticks, 10 ms), elsewhere the JVM's uptime (which misses the launcher's first moments). One per
 * process: {@code serve} marks its steps as it passes them.
 */
public final class StartTimeline {
    /** The process's age when this class was initialised, and the {@link System#nanoTime()} of that moment. */
    private static final long AGE_AT_INIT_MS = processAgeMs();
    private static final long INIT_NANOS = System.nanoTime();
    private static final Map<String, Long> STEPS = new LinkedHashMap<>();

    private StartTimeline() {
    }

    /** Marks {@code step} as passed now (a step marked again keeps its first time). Any thread. */
    public static void mark(String step) {
        long now = AGE_AT_INIT_MS + (System.nanoTime() - INIT_NANOS) / 1_000_000;
        synchronized (STEPS) {
            STEPS.putIfAbsent(step, now);
        }
    }

    /** Every step marked so far, in the order they were passed, with its milliseconds since the process began. */
    public static Map<String, Long> steps() {
        synchronized (STEPS) {
            return new LinkedHashMap<>(STEPS);
        }
    }

    /**
     * How long ago this process began: the system's uptime less the process's start in it (both in clock ticks,
     * USER_HZ = 100 on every Linux), read from /proc; elsewhere the JVM's uptime.
     */
    private static long processAgeMs() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // the fields after the command name, which is in parentheses and may hold spaces
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(fields[19]);      // field 22, starttime
            double uptimeS = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            return Math.round(uptimeS * 1000) - startTicks * 10;
        } catch (IOException | RuntimeException e) {
            return ManagementFactory.getRuntimeMXBean().getUptime();
        }
    }
}

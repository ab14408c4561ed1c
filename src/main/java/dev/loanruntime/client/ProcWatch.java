package dev.loanruntime.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.loanruntime.cli.UsageError;

/**
 * Samples another process's thread count and resident memory from {@code /proc/PID/status} (Linux) on its own
 * platform thread, every few milliseconds, until {@link #stop()}.
 */
final class ProcWatch {
    private static final long PERIOD_MS = 10;
    private final long pid;
    private final Path status;
    // USER_HZ: the unit of utime and stime in /proc/PID/stat; 100 on every mainstream Linux build.
    private static final double TICKS_PER_S = 100;
    private final Sample before;
    private final long cpuTicksBefore;
    private volatile boolean running = true;
    private volatile int peakThreads;
    private final Thread sampler;

    private ProcWatch(long pid) {
        this.pid = pid;
        this.status = Path.of("/proc", Long.toString(pid), "status");
        this.before = sample();
        this.cpuTicksBefore = cpuTicks();
        this.peakThreads = before.threads();
        this.sampler = Thread.ofPlatform().daemon().name("proc-watch-" + pid).start(this::loop);
    }

    /**
     * Starts watching {@code pid}.
     *
     * @throws IllegalArgumentException when there is no such process or no {@code /proc}
     */
    static ProcWatch start(long pid) {
        if (!Files.isReadable(Path.of("/proc", Long.toString(pid), "status"))) {
            throw UsageError.invalid("--watch-pid", "no readable /proc/" + pid
                    + "/status (expected the PID of a running server on Linux) but was '" + pid + "'");
        }
        return new ProcWatch(pid);
    }

    private void loop() {
        while (running) {
            try {
                peakThreads = Math.max(peakThreads, sample().threads());
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                return; // the process ended; keep what was seen
            }
        }
    }

    /** Stops sampling and returns what was seen; the peak resident memory is the kernel's high-water mark. */
    Server stop() throws InterruptedException {
        running = false;
        sampler.interrupt();
        sampler.join();
        Sample last = sample();
        return new Server(pid, before.threads(), Math.max(peakThreads, last.threads()), mib(before.rssKb()),
                mib(Math.max(last.hwmKb(), last.rssKb())),
                Math.round((cpuTicks() - cpuTicksBefore) / TICKS_PER_S * 100) / 100.0);
    }

    private Sample sample() {
        try {
            List<String> lines = Files.readAllLines(status);
            return new Sample((int) field(lines, "Threads:"), field(lines, "VmRSS:"), field(lines, "VmHWM:"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + status, e);
        }
    }

    // utime + stime, fields 14 and 15 of /proc/PID/stat, counted after the command name in parentheses.
    private long cpuTicks() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return cpuTicksBefore;
        }
    }

    private static long field(List<String> lines, String name) {
        return lines.stream().filter(l -> l.startsWith(name))
                .map(l -> l.substring(name.length()).trim().split("\\s+")[0])
                .mapToLong(Long::parseLong).findFirst().orElse(0);
    }

    private static double mib(long kb) {
        return Math.round(kb / 1024.0 * 10) / 10.0;
    }

    private record Sample(int threads, long rssKb, long hwmKb) {
    }

    /**
     * The watched server: OS threads and resident memory before the run and at their peak; CPU used while watched,
     * warm-up included.
     */
    record Server(long pid, int threadsBefore, int peakThreads, double rssBeforeMiB, double peakRssMiB, double cpuS) {
    }
}

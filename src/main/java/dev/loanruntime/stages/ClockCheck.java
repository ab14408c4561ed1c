package dev.loanruntime.stages;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What a stage point costs on this machine: every point is one {@link System#nanoTime()}, about 25 ns on a TSC or
 * kvm-clock clock source, but some machines' kernels fall back to a slow one (hpet, acpi_pm) where a call takes
 * 0.5 to 1 µs, and a request's dozen points then cost more than the request. Measured once when the stages are
 * switched on; a slow clock is reported by a warning line. Runs on the thread that builds the server; takes about
 * 50 ms at most.
 */
final class ClockCheck {
    /** Above this a request's dozen points cost more than a microsecond. */
    static final double SLOW_NANOS = 100;
    private static final Path CLOCK_SOURCE =
            Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    private static final System.Logger LOGGER = System.getLogger(Stages.class.getName());

    private ClockCheck() {
    }

    /** Measures the clock and logs a warning when it is slow. */
    static void run() {
        warning(clockSource(), nanosPerCall()).ifPresent(w -> LOGGER.log(System.Logger.Level.WARNING, w));
    }

    /** The warning for a clock that costs {@code nanos} per call, or none when it is fast enough. */
    static Optional<String> warning(Optional<String> source, double nanos) {
        if (nanos <= SLOW_NANOS) {
            return Optional.empty();
        }
        return Optional.of("System.nanoTime() takes %.0f ns here (clock source %s): with --stages on each request's "
                .formatted(nanos, source.orElse("unknown"))
                + "dozen stage points cost about %.1f µs; a TSC clock source takes about 25 ns"
                        .formatted(nanos * 12 / 1000));
    }

    /** The kernel's clock source on Linux, if the file is there. */
    static Optional<String> clockSource() {
        try {
            return Optional.of(Files.readString(CLOCK_SOURCE).strip());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /**
     * The time one call takes once compiled: the fastest of up to 100 batches of 10,000 calls, within about 50 ms.
     * The first batches run in the interpreter, and at start the JIT's threads compete for the CPU: on a 2-CPU VM
     * whose kvm-clock answers in 28 ns, the median of the first few batches said 181 ns. A clock that is really slow
     * is slow in every batch.
     */
    static double nanosPerCall() {
        int calls = 10_000;
        long budget = System.nanoTime() + 50_000_000L;
        double best = Double.MAX_VALUE;
        for (int b = 0; b < 100; b++) {
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                System.nanoTime(); // a call the JIT keeps: it reads the clock
            }
            long end = System.nanoTime();
            best = Math.min(best, (double) (end - start) / calls);
            if (end - budget > 0) {
                break;
            }
        }
        return best;
    }
}
